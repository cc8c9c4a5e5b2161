"use client";
// The templates of an array: a list (or a tuple's grid of positions) named by its field, with its
// constraints as hints, and each item's move and remove buttons named after the item.
import type {
  ArrayFieldItemButtonsTemplateProps,
  ArrayFieldItemTemplateProps,
  ArrayFieldTemplateProps,
} from "@rjsf/utils";
import { ArrowDown, ArrowUp, Trash2 } from "lucide-react";
import { cn } from "@/lib/ui/cn";
import { pathName, useField } from "../field-names";
import { titleHint } from "../schema-utils";
import { AddButton, Description, Group, iconButton } from "./parts";

export function ArrayFieldTemplate({
  items,
  canAdd,
  onAddClick,
  fieldPathId,
  schema,
  required,
  disabled,
  readonly,
  optionalDataControl,
}: ArrayFieldTemplateProps) {
  const field = useField();
  const path = fieldPathId.path;
  const tuple = Array.isArray(schema.items);
  const notes: string[] = [];
  if (schema.uniqueItems) notes.push("no duplicates");
  if (!tuple && typeof schema.minItems === "number" && schema.minItems > 0)
    notes.push(`at least ${schema.minItems}`);
  if (!tuple && typeof schema.maxItems === "number") notes.push(`at most ${schema.maxItems}`);
  const last = path[path.length - 1];
  const hint = titleHint(typeof last === "string" ? last : "", schema.title);
  const list = (
    <>
      <Description text={schema.description} />
      {items.length === 0 && !tuple && <p className="text-xs italic text-zinc-500">No items.</p>}
      {items.length > 0 && (
        <ol
          className={cn(
            tuple ? "grid grid-cols-[repeat(auto-fit,minmax(8rem,1fr))] gap-2" : "flex flex-col gap-2",
          )}
        >
          {items}
        </ol>
      )}
      {canAdd && (
        <div>
          <AddButton label="Add item" path={path} onClick={onAddClick} disabled={disabled || readonly} />
        </div>
      )}
    </>
  );
  if (path.length === 0 || field?.option) return <div className="flex min-w-0 flex-col gap-2">{list}</div>;
  return (
    <Group
      id={fieldPathId.$id}
      path={path}
      required={required}
      hint={hint}
      notes={notes}
      control={optionalDataControl}
    >
      {list}
    </Group>
  );
}

export function ArrayFieldItemTemplate({ children, buttonsProps, hasToolbar }: ArrayFieldItemTemplateProps) {
  return (
    <li className="flex min-w-0 items-start gap-1">
      <div className="min-w-0 flex-1">{children}</div>
      {hasToolbar && <ArrayFieldItemButtonsTemplate {...buttonsProps} />}
    </li>
  );
}

export function ArrayFieldItemButtonsTemplate({
  fieldPathId,
  disabled,
  readonly,
  hasMoveUp,
  hasMoveDown,
  hasRemove,
  index,
  totalItems,
  onMoveUpItem,
  onMoveDownItem,
  onRemoveItem,
}: ArrayFieldItemButtonsTemplateProps) {
  const name = pathName(fieldPathId.path);
  const off = disabled || readonly;
  return (
    <div className="flex shrink-0 items-center pt-5">
      {(hasMoveUp || hasMoveDown) && (
        <>
          <button
            type="button"
            className={iconButton}
            disabled={off || !hasMoveUp || index === 0}
            onClick={onMoveUpItem}
            title="Move up"
          >
            <ArrowUp aria-hidden="true" />
            <span className="sr-only">Move {name} up</span>
          </button>
          <button
            type="button"
            className={iconButton}
            disabled={off || !hasMoveDown || index === totalItems - 1}
            onClick={onMoveDownItem}
            title="Move down"
          >
            <ArrowDown aria-hidden="true" />
            <span className="sr-only">Move {name} down</span>
          </button>
        </>
      )}
      {hasRemove && (
        <button
          type="button"
          className={cn(iconButton, "hover:text-red-700 dark:hover:text-red-400")}
          disabled={off}
          onClick={onRemoveItem}
          title="Remove"
        >
          <Trash2 aria-hidden="true" />
          <span className="sr-only">Remove {name}</span>
        </button>
      )}
    </div>
  );
}
