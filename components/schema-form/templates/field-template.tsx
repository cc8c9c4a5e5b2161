"use client";
// The template of every field: labelled by its property name (its accessible name carrying its
// path, field-names.tsx), a model's title as a hint beside it, its description and its errors below;
// it reports to the form when the user leaves it having typed something, so its errors show from
// then on (validation.ts). A union's tag has no field: the union's option selector sets it.
import type { FieldTemplateProps, WrapIfAdditionalTemplateProps } from "@rjsf/utils";
import { ADDITIONAL_PROPERTY_FLAG, descriptionId, getSchemaType } from "@rjsf/utils";
import { type FocusEvent, useContext, useRef } from "react";
import { cn } from "@/lib/ui/cn";
import { EntryIndexContext, FieldContext, FieldName, samePath, useField } from "../field-names";
import { DISCRIMINATOR_MARK } from "../prepare-schema";
import { type Schema, titleHint } from "../schema-utils";
import { FormUiContext } from "../validation";
import { Description, hintClasses, labelClasses, Star } from "./parts";

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
