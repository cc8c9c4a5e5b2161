// Validation of a tool's input with the form's AJV 8 validator, and which errors the form shows:
// a field's errors once the user has left it having typed something (it is "touched"), or every
// error after an attempt to call. The errors are recomputed on every change, so a shown error
// clears as soon as the value is valid. AJV's code loads after the form's first render (its own
// chunk): until then rjsf resolves schemas with a stand-in (stand-in-validator.ts), no error shows,
// and a call waits for AJV's verdict.
import type { ErrorSchema, FieldPathList, RJSFSchema, RJSFValidationError, ValidatorType } from "@rjsf/utils";
import { getByPath, toErrorSchema, toPath } from "@rjsf/utils";
import { createContext, useEffect, useState } from "react";
import type { JsonObject } from "@/lib/ors/protocol";
import { prepareSchema } from "./prepare-schema";

export type FormValidator = ValidatorType<unknown, RJSFSchema>;

let ajvLoad: Promise<FormValidator> | null = null;
let loadedAjv: FormValidator | null = null;

/** AJV's validator, its chunk loaded once (a failed load is tried again on the next call). */
export function loadValidator(): Promise<FormValidator> {
  ajvLoad ??= import("./ajv-validator")
    .then((m) => {
      loadedAjv = m.ajvValidator as FormValidator;
      return loadedAjv;
    })
    .catch((err: unknown) => {
      ajvLoad = null;
      throw err;
    });
  return ajvLoad;
}

/** AJV's validator once loaded (null before): its load starts after the first render. */
export function useValidator(): FormValidator | null {
  const [v, setV] = useState<FormValidator | null>(() => loadedAjv);
  useEffect(() => {
    if (v) return;
    let live = true;
    loadValidator().then(
      (x) => live && setV(() => x),
      () => {},
    );
    return () => {
      live = false;
    };
  }, [v]);
  return v;
}

/** Shorter, plainer messages than AJV's defaults. */
export function transformErrors(errors: RJSFValidationError[]): RJSFValidationError[] {
  return (
    errors
      // The union's own verdict, and the null option's "must be null" when another option is chosen,
      // say nothing the chosen option's errors do not say better.
      .filter((e) => e.name !== "oneOf" && e.name !== "anyOf" && e.name !== "if")
      .filter((e) => !(e.name === "type" && e.params?.type === "null"))
      .map((e) => {
        if (e.name === "required") return { ...e, message: "is required" };
        if (e.name === "pattern")
          return { ...e, message: `must match ${String(e.params?.pattern ?? "the pattern")}` };
        if (e.name === "format")
          return { ...e, message: `must be a valid ${String(e.params?.format ?? "value")}` };
        if (e.name === "uniqueItems") return { ...e, message: "must not contain the same value twice" };
        if (e.name === "additionalProperties")
          return {
            ...e,
            message: `has an unknown property ${String(e.params?.additionalProperty ?? "")}`.trim(),
          };
        return e;
      })
  );
}

export interface Validation {
  errors: RJSFValidationError[];
  errorSchema: ErrorSchema;
}

/** Validates `value` against a prepared schema. */
export function validate(validator: FormValidator, schema: RJSFSchema, value: JsonObject): Validation {
  const result = validator.validateFormData(value, schema, undefined, transformErrors);
  // A position the form holds empty (a tuple's, a new list item's) "must be number": it is missing.
  let changed = false;
  const errors = result.errors.map((e) => {
    if (e.name !== "type" || !e.property) return e;
    const v = getByPath(value, toPath(e.property));
    if (v !== null && v !== undefined) return e;
    changed = true;
    return { ...e, message: "is required", stack: `${e.property} is required` };
  });
  return changed ? { errors, errorSchema: toErrorSchema(errors) } : result;
}

/**
 * What is wrong with `input` for a tool's `input_schema`, as readable lines (none: it may be sent):
 * the form's own verdict, for inputs that do not come through the form (a model's proposal).
 */
export async function inputProblems(inputSchema: JsonObject, input: JsonObject): Promise<string[]> {
  return errorLines(validate(await loadValidator(), prepareSchema(inputSchema) as RJSFSchema, input).errors);
}

/** Readable lines (`slot_1.crop: is required`) for a list of errors. */
export function errorLines(errors: RJSFValidationError[]): string[] {
  return errors.map(
    (e) =>
      `${e.property && e.property !== "." ? `${e.property.replace(/^\./, "")}: ` : ""}${e.message ?? "invalid"}`,
  );
}

/** A key of a field path (array positions and property names alike as strings). */
export function pathKey(path: readonly (string | number)[]): string {
  return JSON.stringify(path.map(String));
}

/** The part of `errorSchema` whose paths `show` accepts (the rest of the tree is dropped). */
export function visibleErrors(errorSchema: ErrorSchema, show: (path: string[]) => boolean): ErrorSchema {
  const walk = (node: unknown, path: string[]): Record<string, unknown> | undefined => {
    if (typeof node !== "object" || node === null) return undefined;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(node)) {
      if (key === "__errors") {
        if (Array.isArray(child) && child.length && show(path)) out.__errors = child;
        continue;
      }
      const sub = walk(child, [...path, key]);
      if (sub) out[key] = sub;
    }
    return Object.keys(out).length ? out : undefined;
  };
  return (walk(errorSchema, []) ?? {}) as ErrorSchema;
}

/** How a string field is typed: a one-line input or a growing text area (the user's choice). */
export type LineMode = "line" | "area";

/** The key/value rows of a map as the user typed them (keys may be empty or repeated). */
export interface MapRow {
  id: number;
  key: string;
  value: unknown;
}

/** What fields tell the form about the user's progress through them, and what they ask of it. */
export interface FormUi {
  /** The user left the field at `path` having typed something: its errors show from now on. */
  touch(path: FieldPathList): void;
  /** A call was attempted: every error shows. */
  attempted: boolean;
  /** Whether the errors of the field at `path` show (it was touched, or a call was attempted). */
  showsErrors(path: FieldPathList): boolean;
  /** The user's choice of one line or a text area for the string at `path`, if any. */
  lineMode(path: FieldPathList): LineMode | undefined;
  setLineMode(path: FieldPathList, mode: LineMode): void;
  /**
   * The rows of every map in the form, by `pathKey` of the map: kept by the form, so switching to
   * the JSON tab and back keeps an entry whose key is not filled in yet.
   */
  mapRows: Map<string, MapRow[]>;
  /**
   * A map's entries that cannot be sent (no key, a repeated key, no value), by `pathKey` of the
   * map, as readable lines; an empty list clears them. The form refuses to call while any remain.
   */
  reportEntryProblems(mapKey: string, problems: string[]): void;
}

export const FormUiContext = createContext<FormUi>({
  touch: () => {},
  attempted: false,
  showsErrors: () => false,
  lineMode: () => undefined,
  setLineMode: () => {},
  mapRows: new Map(),
  reportEntryProblems: () => {},
});
