"use client";
// The object field of generated forms. A map (an object with an `additionalProperties` schema,
// Pydantic's `dict[str, X]`) is drawn here as key/value rows; every other object goes to rjsf's own
// ObjectField. rjsf names a new entry `newKey` and renames a key typed twice to `key-1`, sending the
// renamed value; here the rows are kept as the user typed them: a new entry starts with an empty key,
// and an entry with no key, a key another entry (or a field) already has, or no value is an error on
// that entry, left out of the value and never sent (the form refuses to call while one remains).
import { getDefaultRegistry } from "@rjsf/core";
import type { FieldPathList, FieldProps, RJSFSchema } from "@rjsf/utils";
import {
  ADDITIONAL_PROPERTY_FLAG,
  getUiOptions,
  guessType,
  isFormDataAvailable,
  setByPath,
  shouldRenderOptionalField,
  toFieldPathId,
} from "@rjsf/utils";
import { X } from "lucide-react";
import { type ChangeEvent, type ReactNode, useContext, useEffect, useRef, useState } from "react";
import { cn } from "@/lib/ui/cn";
import { EntryIndexContext, pathName } from "./field-names";
import { isObj, type Schema, titleHint } from "./schema-utils";
import { AddButton, Group, iconButton } from "./templates";
import { FormUiContext, type MapRow, pathKey } from "./validation";
import { inputClasses } from "./widgets";

const { ObjectField: BaseObjectField } = getDefaultRegistry().fields;

/** Whether a (resolved) object schema is a map: its `additionalProperties` is a schema or `true`. */
export function isMapSchema(schema: Schema): boolean {
  const ap = schema.additionalProperties;
  return ap === true || (isObj(ap) && schema.patternProperties === undefined);
}

let nextRowId = 1;

function rowsOf(entries: [string, unknown][]): MapRow[] {
  return entries.map(([key, value]) => ({ id: nextRowId++, key, value }));
}

/** What is wrong with each row (null: nothing), in the order of the rows. */
export function rowProblems(
  rows: MapRow[],
  fixed: readonly string[],
): ({ kind: "key"; message: string } | { kind: "value"; message: string } | null)[] {
  const firstAt = new Map<string, number>();
  return rows.map((row, i) => {
    if (row.key === "") return { kind: "key", message: "needs a key" };
    if (fixed.includes(row.key))
      return { kind: "key", message: `"${row.key}" is the name of a field of its own` };
    const first = firstAt.get(row.key);
    if (first !== undefined)
      return { kind: "key", message: `"${row.key}" is already the key of entry #${first + 1}` };
    firstAt.set(row.key, i);
    if (row.value === undefined) return { kind: "value", message: "needs a value" };
    return null;
  });
}

/** The entries the rows stand for: every row with a usable key and a value, in order. */
function entriesOf(rows: MapRow[], fixed: readonly string[]): [string, unknown][] {
  const problems = rowProblems(rows, fixed);
  return rows.filter((_, i) => problems[i] === null).map((r) => [r.key, r.value]);
}

const NONE = "\u0000undefined";
const sameEntries = (a: [string, unknown][], b: [string, unknown][]) =>
  a.length === b.length &&
  a.every(([k, v], i) => k === b[i]![0] && JSON.stringify(v ?? NONE) === JSON.stringify(b[i]![1] ?? NONE));

/** The schema of a map's values: its `additionalProperties`, or (for `true`) the value's own type. */
function valueSchemaOf(schema: Schema, value: unknown): RJSFSchema {
  const ap = schema.additionalProperties;
  if (isObj(ap)) return ap as RJSFSchema;
  return { type: value === undefined ? "string" : guessType(value) } as RJSFSchema;
}

function MapField(props: FieldProps) {
  const {
    formData,
    onChange,
    fieldPathId,
    registry,
    errorSchema,
    disabled,
    readonly,
    required,
    uiSchema,
    onBlur,
    onFocus,
    hideError,
  } = props;
  const { SchemaField } = registry.fields;
  const schema = registry.schemaUtils.retrieveSchema(props.schema, formData) as Schema;
  const ui = useContext(FormUiContext);
  const path = fieldPathId.path;
  const mapKey = pathKey(path);
  const data = isObj(formData) ? formData : undefined;
  const props_ = isObj(schema.properties) ? schema.properties : {};
  // The schema's own properties (rjsf adds a map's existing keys to `properties`, flagged).
  const fixed = Object.keys(props_).filter(
    (k) => !(isObj(props_[k]) && ADDITIONAL_PROPERTY_FLAG in props_[k]),
  );
  const dataEntries = Object.entries(data ?? {}).filter(([k, v]) => !fixed.includes(k) && v !== undefined);

  const [rows, setRowsState] = useState<MapRow[]>(() => {
    const kept = ui.mapRows.get(mapKey);
    return kept && sameEntries(entriesOf(kept, fixed), dataEntries) ? kept : rowsOf(dataEntries);
  });
  // The value changed elsewhere (the JSON tab, a reset): the rows follow it.
  const current = sameEntries(
    entriesOf(rows, fixed).filter(([, v]) => v !== undefined),
    dataEntries.filter(([k]) => k !== ""),
  )
    ? rows
    : rowsOf(dataEntries);
  if (current !== rows) setRowsState(current);
  ui.mapRows.set(mapKey, current);

  const problems = rowProblems(current, fixed);
  const problemLines = problems.flatMap((p, i) => (p ? [`${pathName([...path, i])}: ${p.message}`] : []));
  const problemText = problemLines.join("\n");
  const report = useRef(ui.reportEntryProblems);
  report.current = ui.reportEntryProblems;
  useEffect(() => {
    report.current(mapKey, problemText ? problemText.split("\n") : []);
  }, [mapKey, problemText]);
  useEffect(() => () => report.current(mapKey, []), [mapKey]);

  const [keyTouched, setKeyTouched] = useState<ReadonlySet<number>>(() => new Set());

  // rjsf's fields skip a re-render when only functions changed (its deep compare ignores them), so
  // a value field may call back with a handler of an earlier render: handlers read the rows here.
  const latest = useRef(current);
  latest.current = current;
  const latestData = useRef(data);
  latestData.current = data;

  const emit = (next: MapRow[]) => {
    latest.current = next;
    setRowsState(next);
    ui.mapRows.set(mapKey, next);
    const out: Record<string, unknown> = {};
    const now = latestData.current;
    for (const k of fixed) if (now && now[k] !== undefined) out[k] = now[k];
    for (const [k, v] of entriesOf(next, fixed)) out[k] = v;
    onChange(out, path);
  };

  const add = () => {
    const vs = valueSchemaOf(schema, undefined) as Schema;
    const value = vs.default !== undefined ? vs.default : vs.const !== undefined ? vs.const : undefined;
    emit([...latest.current, { id: nextRowId++, key: "", value }]);
  };
  const remove = (id: number) => emit(latest.current.filter((r) => r.id !== id));
  const rename = (id: number, key: string) =>
    emit(latest.current.map((r) => (r.id === id ? { ...r, key } : r)));
  const setValue = (id: number, value: unknown, at: FieldPathList, entryPath: FieldPathList) => {
    emit(
      latest.current.map((r) => {
        if (r.id !== id) return r;
        const rest = at.slice(entryPath.length);
        if (rest.length === 0) return { ...r, value };
        const copy = structuredClone(r.value ?? (typeof rest[0] === "number" ? [] : {})) as object;
        setByPath(copy, rest as (string | number)[], value);
        return { ...r, value: copy };
      }),
    );
  };

  // An optional map that is not set: its Set control only.
  const optional = shouldRenderOptionalField(registry, schema as RJSFSchema, !!required, uiSchema);
  const control = optional ? (
    <registry.fields.OptionalDataControlsField {...props} schema={schema as RJSFSchema} />
  ) : undefined;
  const last = path[path.length - 1];
  const frame = (body: ReactNode) =>
    path.length === 0 ? (
      <div className="flex min-w-0 flex-col gap-3">{body}</div>
    ) : (
      <Group
        id={fieldPathId.$id}
        path={path}
        required={required}
        hint={titleHint(typeof last === "string" ? last : "", schema.title)}
        control={control}
      >
        {body}
      </Group>
    );
  if (optional && !isFormDataAvailable(formData)) return frame(null);

  const off = disabled || readonly;
  const fixedUi = (k: string) => (uiSchema as Record<string, unknown> | undefined)?.[k];
  return frame(
    <>
      {typeof schema.description === "string" && schema.description.trim() && (
        <p className="whitespace-pre-wrap text-xs text-zinc-600 dark:text-zinc-400">{schema.description}</p>
      )}
      {fixed.map((k) => (
        <div key={k}>
          <SchemaField
            name={k}
            required={Array.isArray(schema.required) && (schema.required as string[]).includes(k)}
            schema={props_[k] as RJSFSchema}
            uiSchema={fixedUi(k) as FieldProps["uiSchema"]}
            errorSchema={
              (errorSchema as Record<string, unknown> | undefined)?.[k] as FieldProps["errorSchema"]
            }
            fieldPathId={toFieldPathId(k, registry.globalFormOptions, path)}
            formData={data?.[k]}
            onChange={onChange}
            onBlur={onBlur}
            onFocus={onFocus}
            registry={registry}
            disabled={disabled}
            readonly={readonly}
            hideError={hideError}
          />
        </div>
      ))}
      <div className="flex flex-col gap-2">
        {current.length > 0 && (
          <div aria-hidden="true" className="flex gap-2 pr-9 text-[11px] text-zinc-500 dark:text-zinc-400">
            <span className="w-2/5 shrink-0">key</span>
            <span>value</span>
          </div>
        )}
        {current.map((row, i) => {
          const problem = problems[i];
          const entryName = pathName([...path, i]);
          const keyId = `${fieldPathId.$id}__entry${row.id}__key`;
          const keyErrorId = `${keyId}__error`;
          const keyProblem = problem?.kind === "key" ? problem : null;
          // A repeated key shows at once; a missing key once the user left it or tried to call.
          const showKey = keyProblem !== null && (row.key !== "" || keyTouched.has(row.id) || ui.attempted);
          // Usable rows are named by their key (errors of the value arrive there); others by position.
          const segment = problem?.kind === "key" ? `#entry${row.id}` : row.key;
          const entryPath = [...path, segment];
          const valueErrors =
            problem?.kind === "value" && ui.showsErrors(entryPath)
              ? { __errors: ["needs a value"] }
              : problem === null
                ? (errorSchema as Record<string, unknown> | undefined)?.[row.key]
                : undefined;
          return (
            <div key={row.id} className="flex flex-col gap-1">
              <div className="flex items-start gap-2">
                <div className="w-2/5 shrink-0">
                  <label htmlFor={keyId} className="sr-only">
                    {entryName} key
                  </label>
                  <input
                    id={keyId}
                    type="text"
                    value={row.key}
                    disabled={off}
                    placeholder="key"
                    autoComplete="off"
                    spellCheck={false}
                    onChange={(e: ChangeEvent<HTMLInputElement>) => rename(row.id, e.target.value)}
                    onBlur={() => setKeyTouched((s) => (s.has(row.id) ? s : new Set([...s, row.id])))}
                    onKeyDown={(e) => {
                      if (e.key === "Enter" && !e.nativeEvent.isComposing && !e.ctrlKey && !e.metaKey) {
                        e.preventDefault();
                        setKeyTouched((s) => new Set([...s, row.id]));
                      }
                    }}
                    aria-invalid={showKey || undefined}
                    aria-describedby={showKey ? keyErrorId : undefined}
                    className={cn(inputClasses, "h-9 font-mono")}
                  />
                  {showKey && (
                    <p id={keyErrorId} className="mt-0.5 text-xs font-medium text-red-700 dark:text-red-400">
                      {keyProblem.message}
                    </p>
                  )}
                </div>
                <EntryIndexContext.Provider value={i}>
                  <SchemaField
                    name={segment}
                    required={false}
                    schema={
                      {
                        ...valueSchemaOf(schema, row.value),
                        [ADDITIONAL_PROPERTY_FLAG]: true,
                      } as RJSFSchema
                    }
                    uiSchema={
                      (uiSchema as Record<string, unknown> | undefined)
                        ?.additionalProperties as FieldProps["uiSchema"]
                    }
                    errorSchema={valueErrors as FieldProps["errorSchema"]}
                    fieldPathId={toFieldPathId(segment, registry.globalFormOptions, path)}
                    formData={row.value}
                    onChange={(value, at) => setValue(row.id, value, at ?? entryPath, entryPath)}
                    onBlur={onBlur}
                    onFocus={onFocus}
                    registry={registry}
                    disabled={disabled}
                    readonly={readonly}
                    hideError={hideError}
                  />
                </EntryIndexContext.Provider>
                <button
                  type="button"
                  className={iconButton}
                  disabled={off}
                  onClick={() => remove(row.id)}
                  title="Remove this entry"
                >
                  <X aria-hidden="true" />
                  <span className="sr-only">Remove {entryName}</span>
                </button>
              </div>
            </div>
          );
        })}
        {current.length === 0 && <p className="text-xs italic text-zinc-500">No entries.</p>}
        {getUiOptions(uiSchema).addable !== false && (
          <div>
            <AddButton label="Add entry" path={path} onClick={add} disabled={off} />
          </div>
        )}
      </div>
    </>,
  );
}

/** rjsf's ObjectField for objects; maps get the rows above. */
export function ObjectField(props: FieldProps) {
  const schema = props.registry.schemaUtils.retrieveSchema(props.schema, props.formData) as Schema;
  if (isMapSchema(schema)) return <MapField {...props} />;
  return <BaseObjectField {...props} />;
}
