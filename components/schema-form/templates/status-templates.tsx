"use client";
// Small templates: a field's errors (below it, so nothing above moves), a union's frame around its
// option selector, and the set/unset control of an optional object or array.
import type {
  FieldErrorProps,
  MultiSchemaFieldTemplateProps,
  OptionalDataControlsTemplateProps,
} from "@rjsf/utils";
import { errorId } from "@rjsf/utils";
import { Plus, X } from "lucide-react";
import { pathName, useField } from "../field-names";
import { smallButton } from "./parts";

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
  const onClick = onAddClick ?? onRemoveClick;
  if (!onClick) return <em className="text-xs text-zinc-500">not set</em>;
  // Set when the value is absent, Unset when it is there.
  const Icon = onAddClick ? Plus : X;
  return (
    <button id={id} type="button" className={smallButton} onClick={onClick}>
      <Icon aria-hidden="true" />
      {onAddClick ? "Set" : "Unset"} <span className="sr-only">{name}</span>
    </button>
  );
}
