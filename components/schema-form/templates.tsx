"use client";
// The templates and fields of generated forms, over rjsf's shadcn theme. What they add:
// - every field labelled by its property name, its accessible name carrying its path (see
//   field-names.tsx); a model's title only as a hint beside it;
// - nested objects and arrays as fieldsets whose legend names them; the root object plain, never
//   removable;
// - maps (`additionalProperties`) as key/value rows with add and remove (map-field.tsx draws the
//   rows; a map entry's value field here is labelled `<map> #n value`);
// - a union's option selector named by the union's field; an optional model as a none/set choice;
// - a field reports to the form when the user leaves it having typed something, so its errors show
//   from then on (validation.ts), and errors render below the field without moving what is above.
import { getDefaultRegistry } from "@rjsf/core";
import type {
  ArrayFieldItemButtonsTemplateProps,
  ArrayFieldItemTemplateProps,
  ArrayFieldTemplateProps,
  FieldErrorProps,
  FieldPathList,
  FieldProps,
  FieldTemplateProps,
  MultiSchemaFieldTemplateProps,
  ObjectFieldTemplateProps,
  OptionalDataControlsTemplateProps,
  UiSchema,
  WrapIfAdditionalTemplateProps,
} from "@rjsf/utils";
import { ADDITIONAL_PROPERTY_FLAG, canExpand, descriptionId, errorId, getSchemaType } from "@rjsf/utils";
import { ArrowDown, ArrowUp, Plus, Trash2, X } from "lucide-react";
import { cloneElement, type FocusEvent, type ReactNode, useContext, useRef } from "react";
import { cn } from "@/lib/ui/cn";
import { EntryIndexContext, FieldContext, FieldName, pathName, samePath, useField } from "./field-names";
import { DISCRIMINATOR_MARK } from "./prepare-schema";
import { deref, isObj, isPrimitive, nullableOption, type Schema, titleHint } from "./schema-utils";
import { FormUiContext } from "./validation";
import { NullableChoiceWidget } from "./widgets";

const labelClasses = "font-mono text-xs font-medium text-zinc-800 dark:text-zinc-200";
const hintClasses = "text-[11px] text-zinc-500 dark:text-zinc-400";
const descriptionClasses = "whitespace-pre-wrap text-xs text-zinc-600 dark:text-zinc-400";
const smallButton =
  "inline-flex h-6 items-center gap-1 rounded-md border border-zinc-300 bg-white px-2 text-xs font-medium text-zinc-700 shadow-xs hover:bg-zinc-50 disabled:cursor-not-allowed disabled:opacity-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200 dark:hover:bg-zinc-800 [&_svg]:size-3.5";
export const iconButton =
  "inline-flex size-7 items-center justify-center rounded-md text-zinc-500 hover:bg-zinc-100 hover:text-zinc-900 disabled:cursor-not-allowed disabled:opacity-40 dark:text-zinc-400 dark:hover:bg-zinc-800 dark:hover:text-zinc-100 [&_svg]:size-3.5";

/** "Add entry" / "Add item"; screen readers also hear which field it adds to. */
export function AddButton({
  label,
  path,
  onClick,
  disabled,
}: {
  label: string;
  path: FieldPathList;
  onClick: () => void;
  disabled?: boolean;
}) {
  return (
    <button type="button" className={smallButton} onClick={onClick} disabled={disabled}>
      <Plus aria-hidden="true" />
      {label}
      {path.length > 0 && (
        <>
          {" "}
          <span className="sr-only">to {pathName(path)}</span>
        </>
      )}
    </button>
  );
}

function Star({ show }: { show?: boolean }) {
  if (!show) return null;
  return (
    <span aria-hidden="true" className="ml-0.5 text-red-600 dark:text-red-400">
      *
    </span>
  );
}

/** A description as prepareSchema left it (reflowed: docstring wraps joined, paragraphs kept). */
function Description({ id, text }: { id?: string; text: unknown }) {
  if (typeof text !== "string" || !text.trim()) return null;
  return (
    <p id={id} className={descriptionClasses}>
      {text}
    </p>
  );
}

/** Whether an element is a field's own control (its id, or a radio/checkbox group's `${id}-n`). */
function isOwnControl(target: EventTarget, id: string): boolean {
  const el = target as HTMLElement;
  return el.id === id || (el.id?.startsWith(`${id}-`) && /^\d+$/.test(el.id.slice(id.length + 1)));
}

function hasText(target: EventTarget): boolean {
  const el = target as HTMLInputElement;
  return (
    (el.tagName === "INPUT" || el.tagName === "TEXTAREA") && typeof el.value === "string" && el.value !== ""
  );
}

export function FieldTemplate(props: FieldTemplateProps) {
  const { id, children, displayLabel, errors, rawDescription, hidden, required, schema, fieldPathId } = props;
  const parent = useField();
  const ui = useContext(FormUiContext);
  const entryIndex = useContext(EntryIndexContext);
  const typed = useRef(false);
  const path = fieldPathId.path;
  const option = parent !== null && samePath(parent.path, path);
  const info = { path, option, required: !!required };

  // A union's tag is set by the union's option selector (tag = value), not typed.
  if ((schema as Schema)[DISCRIMINATOR_MARK] === true) return null;
  if (hidden) return <div className="hidden">{children}</div>;
  const type = getSchemaType(schema);
  const union = Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf);
  const additional = ADDITIONAL_PROPERTY_FLAG in schema;
  // Containers name themselves (a fieldset legend, a union's selector); a checkbox has its label beside it.
  const selfNamed = type === "object" || type === "array" || union || type === "boolean";
  const entry = additional && entryIndex !== null;
  const labelPath = entry ? [...path.slice(0, -1), entryIndex, "value"] : option ? [...path, "value"] : path;
  const last = path[path.length - 1];
  const hint = typeof last === "string" && !entry && !option ? titleHint(last, schema.title) : undefined;
  const showLabel = displayLabel !== false && !selfNamed && path.length > 0;

  const onChange = (e: { target: EventTarget }) => {
    if (isOwnControl(e.target, id)) typed.current = true;
  };
  const onBlur = (e: FocusEvent) => {
    if (isOwnControl(e.target, id) && (typed.current || hasText(e.target))) ui.touch(path);
  };

  const body = (
    // biome-ignore lint/a11y/noStaticElementInteractions: listens to its field's own control (bubbling), adds no interaction
    <div className={cn("flex min-w-0 flex-col gap-1", entry && "flex-1")} onChange={onChange} onBlur={onBlur}>
      {showLabel && (
        <div className={cn("flex flex-wrap items-baseline gap-x-2", (entry || option) && "sr-only")}>
          <label htmlFor={id} className={labelClasses}>
            <FieldName path={labelPath} />
            <Star show={required && typeof last !== "number" && !entry} />
          </label>
          {hint && <span className={hintClasses}>{hint}</span>}
        </div>
      )}
      {!selfNamed && <Description id={descriptionId(id)} text={rawDescription} />}
      {children}
      {errors}
    </div>
  );
  return <FieldContext.Provider value={info}>{body}</FieldContext.Provider>;
}

/** rjsf wraps additional properties here; a map's rows are drawn by map-field.tsx instead. */
export function WrapIfAdditionalTemplate({ children, classNames, style }: WrapIfAdditionalTemplateProps) {
  return (
    <div className={classNames} style={style}>
      {children}
    </div>
  );
}

/**
 * A nested object or array: a fieldset named by its legend's field name only (its model's title
 * and its constraints describe it; an add/remove control sits beside them).
 */
export function Group({
  id,
  path,
  required,
  hint,
  notes = [],
  control,
  children,
}: {
  id: string;
  path: (string | number)[];
  required?: boolean;
  hint?: string;
  notes?: string[];
  control?: ReactNode;
  children: ReactNode;
}) {
  const nameId = `${id}__name`;
  const hintId = `${id}__hint`;
  const hints = hint ? [hint, ...notes] : notes;
  return (
    <fieldset
      aria-labelledby={nameId}
      aria-describedby={hints.length ? hintId : undefined}
      className="flex min-w-0 flex-col gap-3 rounded-md border border-zinc-200 px-3 pt-1 pb-3 dark:border-zinc-800"
    >
      <legend className="flex w-full flex-wrap items-baseline gap-x-2 px-1">
        <span id={nameId} className={labelClasses}>
          <FieldName path={path} />
          <Star show={required && typeof path[path.length - 1] !== "number"} />
        </span>
        {hints.length > 0 && (
          <span id={hintId} className={cn("flex flex-wrap gap-x-2", hintClasses)}>
            {hints.map((h) => (
              <span key={h}>{h}</span>
            ))}
          </span>
        )}
        {control && <span className="ml-auto self-center">{control}</span>}
      </legend>
      {children}
    </fieldset>
  );
}

export function ObjectFieldTemplate({
  properties,
  fieldPathId,
  schema,
  description,
  optionalDataControl,
  onAddProperty,
  formData,
  uiSchema,
  disabled,
  readonly,
  required,
}: ObjectFieldTemplateProps) {
  const field = useField();
  const path = fieldPathId.path;
  // rjsf adds a map's entries to the schema's properties, flagged.
  const isEntry = (name: string) => {
    const prop = isObj(schema.properties) ? schema.properties[name] : undefined;
    return !isObj(prop) || ADDITIONAL_PROPERTY_FLAG in prop;
  };
  // A union's tag is not a field of its own (the option selector sets it).
  const isTag = (name: string) => {
    const prop = isObj(schema.properties) ? schema.properties[name] : undefined;
    return isObj(prop) && prop[DISCRIMINATOR_MARK] === true;
  };
  const fixed = properties.filter((p) => !isEntry(p.name) && !isTag(p.name));
  const entries = properties.filter((p) => isEntry(p.name));
  const expandable = canExpand(schema, uiSchema, formData);
  const isMap = entries.length > 0 || expandable;
  const body = (
    <>
      {typeof description === "string" ? <Description text={description} /> : description}
      {fixed.map((p) => (
        <div key={p.name} className={cn(p.hidden && "hidden")}>
          {p.content}
        </div>
      ))}
      {isMap && (
        <div className="flex flex-col gap-2">
          {entries.length > 0 && (
            <div aria-hidden="true" className={cn("flex gap-2 pr-9", hintClasses)}>
              <span className="w-2/5 shrink-0">key</span>
              <span>value</span>
            </div>
          )}
          {entries.map((p, i) => (
            // Keyed by position: renaming a key keeps its row (and the focus in it).
            <EntryIndexContext.Provider key={i} value={i}>
              {cloneElement(p.content, { key: i })}
            </EntryIndexContext.Provider>
          ))}
          {entries.length === 0 && <p className="text-xs italic text-zinc-500">No entries.</p>}
          {expandable && (
            <div>
              <AddButton
                label="Add entry"
                path={path}
                onClick={onAddProperty}
                disabled={disabled || readonly}
              />
            </div>
          )}
        </div>
      )}
    </>
  );
  // The tool's input itself (the root) and a union's option (named by its selector) have no frame.
  if (path.length === 0 || field?.option) {
    return <div className="flex min-w-0 flex-col gap-3">{body}</div>;
  }
  const last = path[path.length - 1];
  const hint = titleHint(typeof last === "string" ? last : "", schema.title);
  return (
    <Group id={fieldPathId.$id} path={path} required={required} hint={hint} control={optionalDataControl}>
      {body}
    </Group>
  );
}

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

/** A field's errors, announced politely; rendered below the field, so nothing above it moves. */
export function FieldErrorTemplate({ errors = [], fieldPathId }: FieldErrorProps) {
  const messages = errors.filter((e) => typeof e === "string" && e) as string[];
  if (messages.length === 0) return null;
  return (
    <div id={errorId(fieldPathId)} className="flex flex-col gap-0.5">
      {messages.map((m) => (
        <p key={m} className="text-xs font-medium text-red-700 dark:text-red-400">
          {m}
        </p>
      ))}
    </div>
  );
}

export function MultiSchemaFieldTemplate({ selector, optionSchemaField }: MultiSchemaFieldTemplateProps) {
  return (
    <div className="flex min-w-0 flex-col gap-2 rounded-md border border-zinc-200 p-3 dark:border-zinc-800">
      {selector}
      {optionSchemaField}
    </div>
  );
}

/** Add/remove of an optional object or array (never shown on the tool's input itself). */
export function OptionalDataControlsTemplate({
  id,
  onAddClick,
  onRemoveClick,
}: OptionalDataControlsTemplateProps) {
  const field = useField();
  const path = field?.path ?? [];
  if (path.length === 0) return null;
  const name = pathName(path);
  if (onAddClick) {
    return (
      <button id={id} type="button" className={smallButton} onClick={onAddClick}>
        <Plus aria-hidden="true" />
        Set <span className="sr-only">{name}</span>
      </button>
    );
  }
  if (onRemoveClick) {
    return (
      <button id={id} type="button" className={smallButton} onClick={onRemoveClick}>
        <X aria-hidden="true" />
        Unset <span className="sr-only">{name}</span>
      </button>
    );
  }
  return <em className="text-xs text-zinc-500">not set</em>;
}

const { AnyOfField: BaseAnyOfField, OneOfField: BaseOneOfField } = getDefaultRegistry().fields;

/** Options of an optional model (`anyOf [null, $ref]`) get the none/set choice as their selector. */
function withNullableChoice(props: FieldProps): FieldProps {
  const key = Array.isArray(props.schema.anyOf) ? "anyOf" : "oneOf";
  const opts = props.schema[key] as Schema[] | undefined;
  const inner = nullableOption(props.schema as Schema);
  if (!inner || !opts) return props;
  if (isPrimitive(deref(props.registry.rootSchema as Schema, inner))) return props;
  const nullIndex = opts.findIndex((o) => o !== inner);
  const uiSchema: UiSchema = {
    ...props.uiSchema,
    "ui:widget": NullableChoiceWidget,
    "ui:options": { ...(props.uiSchema?.["ui:options"] ?? {}), nullIndex },
    // Each option's own fields get the plain uiSchema, not the choice widget.
    [key]: opts.map(() => ({})),
  };
  return { ...props, uiSchema };
}

export function AnyOfField(props: FieldProps) {
  return <BaseAnyOfField {...withNullableChoice(props)} />;
}

export function OneOfField(props: FieldProps) {
  return <BaseOneOfField {...withNullableChoice(props)} />;
}
