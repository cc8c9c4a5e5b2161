"use client";
// The tool form's own state in one reducer: the tab, what the user has touched or attempted, the
// JSON text as typed, the line modes of string fields, and the entry problems of maps. The value
// itself is the parent's (tool-form.tsx); this state is how the form shows it. Touches wait while a
// pointer is pressed, so an error they reveal never moves a button under a click.
import type { FieldPathList } from "@rjsf/utils";
import { useCallback, useEffect, useMemo, useReducer, useRef } from "react";
import type { JsonObject } from "@/lib/ors/protocol";
import { jsonEqual, parseJsonObject } from "./json-text";
import { type FormUi, type LineMode, type MapRow, pathKey } from "./validation";

export type ToolFormTab = "form" | "json";

export interface ToolFormState {
  tab: ToolFormTab;
  /** A call was attempted: every error shows. */
  attempted: boolean;
  /** Paths (by pathKey) the user left having typed something. */
  touched: ReadonlySet<string>;
  /** The JSON tab's text as typed (never re-escaped while it means the value). */
  jsonText: string;
  /** Why the last call from the JSON tab was refused. */
  jsonErrors: string[];
  /** Bumped by a refused call from the form: the first field showing an error takes the focus. */
  focusError: number;
  lineModes: Readonly<Record<string, LineMode>>;
  /** Maps' entries that cannot be sent, by the map's pathKey. */
  entryProblems: Readonly<Record<string, readonly string[]>>;
  /** The entry problems as they stood when the user left the form for the JSON tab. */
  leftBehind: readonly string[];
}

export type ToolFormAction =
  | { type: "touch"; keys: string[] }
  | { type: "lineMode"; key: string; mode: LineMode }
  | { type: "entryProblems"; mapKey: string; problems: readonly string[] }
  | { type: "tab"; tab: ToolFormTab; value: JsonObject }
  | { type: "jsonText"; text: string }
  | { type: "attempt"; jsonErrors?: string[]; focusError?: boolean };

const same = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

export function initialToolFormState(tab: ToolFormTab, value: JsonObject): ToolFormState {
  return {
    tab,
    attempted: false,
    touched: new Set(),
    jsonText: JSON.stringify(value, null, 2),
    jsonErrors: [],
    focusError: 0,
    lineModes: {},
    entryProblems: {},
    leftBehind: [],
  };
}

export function toolFormReducer(s: ToolFormState, a: ToolFormAction): ToolFormState {
  switch (a.type) {
    case "touch":
      return a.keys.every((k) => s.touched.has(k))
        ? s
        : { ...s, touched: new Set([...s.touched, ...a.keys]) };
    case "lineMode":
      return { ...s, lineModes: { ...s.lineModes, [a.key]: a.mode } };
    case "entryProblems": {
      if (same(s.entryProblems[a.mapKey] ?? [], a.problems)) return s;
      const next = { ...s.entryProblems };
      if (a.problems.length) next[a.mapKey] = a.problems;
      else delete next[a.mapKey];
      return { ...s, entryProblems: next };
    }
    case "tab": {
      if (a.tab !== "json") return { ...s, tab: a.tab };
      // Keep what was typed while it still means the current value; else show the value.
      const p = parseJsonObject(s.jsonText);
      const keep = p.ok && jsonEqual(p.value, a.value);
      return {
        ...s,
        tab: "json",
        leftBehind: Object.values(s.entryProblems).flat(),
        jsonText: keep ? s.jsonText : JSON.stringify(a.value, null, 2),
        jsonErrors: [],
      };
    }
    case "jsonText":
      return { ...s, jsonText: a.text, jsonErrors: [] };
    case "attempt":
      return {
        ...s,
        attempted: true,
        jsonErrors: a.jsonErrors ?? s.jsonErrors,
        focusError: a.focusError ? s.focusError + 1 : s.focusError,
      };
  }
}

/** The paths `path` is under, itself included: leaving a field touches its containers too. */
function withAncestors(path: FieldPathList): string[] {
  return path.map((_, i) => pathKey(path.slice(0, i + 1)));
}

/**
 * `touch` for fields: applied at once, or after the pressed pointer's release (and the click that
 * follows it), so the error a touch reveals does not move the layout under that click.
 */
function useReleasedTouches(dispatch: (a: ToolFormAction) => void): (path: FieldPathList) => void {
  const pointerDown = useRef(false);
  const pending = useRef<string[]>([]);
  const flush = useCallback(() => {
    const keys = pending.current;
    pending.current = [];
    if (keys.length) dispatch({ type: "touch", keys });
  }, [dispatch]);
  useEffect(() => {
    const down = () => {
      pointerDown.current = true;
    };
    const up = () => {
      pointerDown.current = false;
      setTimeout(flush, 0);
    };
    document.addEventListener("pointerdown", down, true);
    document.addEventListener("pointerup", up, true);
    document.addEventListener("pointercancel", up, true);
    return () => {
      document.removeEventListener("pointerdown", down, true);
      document.removeEventListener("pointerup", up, true);
      document.removeEventListener("pointercancel", up, true);
    };
  }, [flush]);
  return useCallback(
    (path: FieldPathList) => {
      pending.current.push(...withAncestors(path));
      if (!pointerDown.current) flush();
    },
    [flush],
  );
}

/** The form's state, its dispatch, and what its fields read and report through FormUiContext. */
export function useToolFormState(initialTab: ToolFormTab, value: JsonObject) {
  const [state, dispatch] = useReducer(toolFormReducer, undefined, () =>
    initialToolFormState(initialTab, value),
  );
  const mapRows = useRef(new Map<string, MapRow[]>());
  const touch = useReleasedTouches(dispatch);
  const { attempted, touched, lineModes } = state;
  const formUi = useMemo<FormUi>(
    () => ({
      touch,
      attempted,
      showsErrors: (path) => attempted || touched.has(pathKey(path)),
      lineMode: (path) => lineModes[pathKey(path)],
      setLineMode: (path, mode) => dispatch({ type: "lineMode", key: pathKey(path), mode }),
      mapRows: mapRows.current,
      reportEntryProblems: (mapKey, problems) => dispatch({ type: "entryProblems", mapKey, problems }),
    }),
    [touch, attempted, touched, lineModes],
  );
  const problems = useMemo(() => Object.values(state.entryProblems).flat(), [state.entryProblems]);
  return { state, dispatch, formUi, problems };
}
