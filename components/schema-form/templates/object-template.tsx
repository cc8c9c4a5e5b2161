"use client";
// The template of an object: the tool's input itself (the root) and a union's option plain, a
// nested object as a group named by its field; a map's entries (rjsf adds them to the schema's
// properties, flagged) as key/value rows with an add button, a union's tag left out.
import type { ObjectFieldTemplateProps } from "@rjsf/utils";
import { ADDITIONAL_PROPERTY_FLAG, canExpand } from "@rjsf/utils";
import { cloneElement } from "react";
import { cn } from "@/lib/ui/cn";
import { EntryIndexContext, useField } from "../field-names";
import { DISCRIMINATOR_MARK } from "../prepare-schema";
import { isObj, titleHint } from "../schema-utils";
import { AddButton, Description, Group, hintClasses } from "./parts";

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
