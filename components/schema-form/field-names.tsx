"use client";
// How the fields of a generated form are named. A field is labelled by its property name (`crop`),
// and its accessible name carries the path from the form's root (`slot_1 crop`, `items #1 sku`,
// `root children #2 name`), so every name in a form is unique and a screen reader (or a test's
// `getByLabel("slot_1 crop")`) tells the four `crop` fields of four slots apart.
import type { FieldPathList } from "@rjsf/utils";
import { createContext, useContext } from "react";

/** One path segment as people read it: property names as they are, array positions `#1`, `#2`… */
export function segmentName(segment: string | number): string {
  return typeof segment === "number" ? `#${segment + 1}` : segment;
}

/** The accessible name of the field at `path`: its segments joined by spaces (`items #1 sku`). */
export function pathName(path: FieldPathList): string {
  return path.map(segmentName).join(" ");
}

/** The visible name of the field at `path`: its own segment. */
export function ownName(path: FieldPathList): string {
  const last = path[path.length - 1];
  return last === undefined ? "" : segmentName(last);
}

/**
 * A label's text: the path up to the field read only by assistive technology, then the field's own
 * name. `<FieldName path={["slot_1", "crop"]} />` shows "crop" and is named "slot_1 crop".
 */
export function FieldName({ path, className }: { path: FieldPathList; className?: string }) {
  const prefix = pathName(path.slice(0, -1));
  return (
    <>
      {prefix && (
        <>
          <span className="sr-only">{prefix}</span>{" "}
        </>
      )}
      <span className={className}>{ownName(path)}</span>
    </>
  );
}

/**
 * The field being rendered, for the widgets and templates inside it. `option` is true for the
 * option of a union, which rjsf renders as a second field at the same path (the union's own field
 * already shows the name).
 */
export interface FieldInfo {
  path: FieldPathList;
  option: boolean;
  /** Whether the field is required (a union's selector shows it; rjsf does not tell it). */
  required: boolean;
}

export const FieldContext = createContext<FieldInfo | null>(null);

export function useField(): FieldInfo | null {
  return useContext(FieldContext);
}

export function samePath(a: FieldPathList, b: FieldPathList): boolean {
  return a.length === b.length && a.every((s, i) => String(s) === String(b[i]));
}

/** The position of a map entry (an `additionalProperties` key) among its object's entries. */
export const EntryIndexContext = createContext<number | null>(null);
