"use client";
// A map's rows as the user typed them (keys may be empty or repeated), kept in step with the form's
// value: what is wrong with each row, the entries the usable rows stand for, and the hook that holds
// the rows, reports their problems to the form and turns edits into the map's new value.
import type { FieldPathList } from "@rjsf/utils";
import { guessType, type RJSFSchema, setByPath } from "@rjsf/utils";
import { useContext, useEffect, useRef, useState } from "react";
import { pathName } from "./field-names";
import { isObj, type Schema } from "./schema-utils";
import { FormUiContext, type MapRow, pathKey } from "./validation";

let nextRowId = 1;

function rowsOf(entries: [string, unknown][]): MapRow[] {
  return entries.map(([key, value]) => ({ id: nextRowId++, key, value }));
}

export type RowProblem = { kind: "key"; message: string } | { kind: "value"; message: string } | null;

/** What is wrong with each row (null: nothing), in the order of the rows. */
export function rowProblems(rows: MapRow[], fixed: readonly string[]): RowProblem[] {
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
export function valueSchemaOf(schema: Schema, value: unknown): RJSFSchema {
  const ap = schema.additionalProperties;
  if (isObj(ap)) return ap as RJSFSchema;
  return { type: value === undefined ? "string" : guessType(value) } as RJSFSchema;
}

/** Reports the rows' problems to the form (as readable lines), and clears them when the map goes. */
function useReportedProblems(path: FieldPathList, problems: RowProblem[]): void {
  const ui = useContext(FormUiContext);
  const mapKey = pathKey(path);
  const problemText = problems
    .flatMap((p, i) => (p ? [`${pathName([...path, i])}: ${p.message}`] : []))
    .join("\n");
  const report = useRef(ui.reportEntryProblems);
  report.current = ui.reportEntryProblems;
  useEffect(() => {
    report.current(mapKey, problemText ? problemText.split("\n") : []);
  }, [mapKey, problemText]);
  useEffect(() => () => report.current(mapKey, []), [mapKey]);
}

export interface MapRowsArgs {
  path: FieldPathList;
  schema: Schema;
  /** The schema's own properties (not entries). */
  fixed: string[];
  data: Record<string, unknown> | undefined;
  onChange: (value: Record<string, unknown>, path: FieldPathList) => void;
}

/** The rows of a map, their problems, and the edits that change them (each emits the map's value). */
export function useMapRows({ path, schema, fixed, data, onChange }: MapRowsArgs) {
  const ui = useContext(FormUiContext);
  const mapKey = pathKey(path);
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
  useReportedProblems(path, problems);

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

  return {
    rows: current,
    problems,
    add() {
      const vs = valueSchemaOf(schema, undefined) as Schema;
      const value = vs.default !== undefined ? vs.default : vs.const !== undefined ? vs.const : undefined;
      emit([...latest.current, { id: nextRowId++, key: "", value }]);
    },
    remove: (id: number) => emit(latest.current.filter((r) => r.id !== id)),
    rename: (id: number, key: string) => emit(latest.current.map((r) => (r.id === id ? { ...r, key } : r))),
    setValue(id: number, value: unknown, at: FieldPathList, entryPath: FieldPathList) {
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
    },
  };
}

export type MapRows = ReturnType<typeof useMapRows>;
