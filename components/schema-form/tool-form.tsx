"use client";
// The form of one tool, generated from its input_schema by react-jsonschema-form (shadcn theme,
// AJV 8 validator), with a JSON tab that edits the same value: the parent holds the one value;
// the JSON text is kept as typed while it parses to that value (never re-escaped), and invalid
// JSON shows an error without touching the value. The JSON tab's editor (CodeMirror) loads as its
// own chunk when the tab is first opened.
//
// Keys: Enter in a field never calls the tool (in a one-line field it changes nothing and confirms
// the field; free text gets a new line); Ctrl/Cmd+Enter calls from any field and from the JSON
// editor. The JSON tab says which keys the form has no field for, and refuses keys an object's
// `additionalProperties: false` does not allow as they are typed. Errors show under a field once the user has left it
// having typed something, or after an attempt to call, and clear as soon as the value is valid; an
// error that appears while a pointer is pressed waits for its release, so the layout does not move
// under a click (on Call, say).
import { withTheme } from "@rjsf/core";
import CheckboxesWidget from "@rjsf/shadcn/lib/CheckboxesWidget/CheckboxesWidget.js";
import RadioWidget from "@rjsf/shadcn/lib/RadioWidget/RadioWidget.js";
import RangeWidget from "@rjsf/shadcn/lib/RangeWidget/RangeWidget.js";
import { generateTemplates } from "@rjsf/shadcn/lib/Templates/Templates.js";
import type { ErrorSchema, FieldPathList, RJSFSchema, UiSchema } from "@rjsf/utils";
import {
  type KeyboardEvent,
  type ReactNode,
  useCallback,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
} from "react";
import { Button } from "@/components/ui/button";
import { Kbd } from "@/components/ui/kbd";
import { TabPanel, Tabs } from "@/components/ui/tabs";
import type { JsonObject } from "@/lib/ors/protocol";
import { JsonStatus } from "./json-status";
import { jsonEqual, parseJsonObject } from "./json-text";
import { ObjectField } from "./map-field";
import { prepareSchema } from "./prepare-schema";
import {
  AnyOfField,
  ArrayFieldItemButtonsTemplate,
  ArrayFieldItemTemplate,
  ArrayFieldTemplate,
  FieldErrorTemplate,
  FieldTemplate,
  MultiSchemaFieldTemplate,
  ObjectFieldTemplate,
  OneOfField,
  OptionalDataControlsTemplate,
  WrapIfAdditionalTemplate,
} from "./templates";
import { keyPathText, unshownKeys } from "./unshown-keys";
import {
  errorLines,
  type FormUi,
  FormUiContext,
  type LineMode,
  type MapRow,
  pathKey,
  validate,
  validator,
  visibleErrors,
} from "./validation";
import { BaseInputTemplate, CheckboxWidget, NativeSelectWidget, TextareaWidget, TextWidget } from "./widgets";

// The shadcn theme with the templates and widgets above. Its searchable select (cmdk + a dialog)
// is not bundled: enums and union options use a native <select> with a real <label>.
const ThemedForm = withTheme({
  templates: {
    ...generateTemplates(),
    FieldTemplate,
    ObjectFieldTemplate,
    ArrayFieldTemplate,
    ArrayFieldItemTemplate,
    ArrayFieldItemButtonsTemplate,
    FieldErrorTemplate,
    MultiSchemaFieldTemplate,
    OptionalDataControlsTemplate,
    WrapIfAdditionalTemplate,
    BaseInputTemplate,
  },
  widgets: {
    CheckboxWidget,
    CheckboxesWidget,
    RadioWidget,
    RangeWidget,
    TextareaWidget,
    TextWidget,
    SelectWidget: NativeSelectWidget,
  },
  fields: { AnyOfField, OneOfField, ObjectField },
});

/**
 * What the form fills in by itself: the skeleton of required objects, required arrays' minimum
 * items, and union tags. A field with a default is left out (the server fills it; the form shows
 * it as a placeholder).
 */
const DEFAULTS_BEHAVIOR = {
  emptyObjectFields: "populateRequiredDefaults",
  arrayMinItems: { populate: "requiredOnly" },
} as const;

const uiSchema: UiSchema = {
  "ui:submitButtonOptions": { norender: true },
  // Optional objects start absent, with a "set" control, instead of half-filled.
  "ui:globalOptions": { enableOptionalDataFieldForType: ["object"] },
};

type JsonEditorComponent = typeof import("./json-editor").JsonEditor;
let jsonEditorLoad: Promise<JsonEditorComponent> | null = null;
let loadedJsonEditor: JsonEditorComponent | null = null;

/** Loads the JSON editor's chunk (CodeMirror) once; a failed load is retried on the next call. */
function loadJsonEditor(): Promise<JsonEditorComponent> {
  jsonEditorLoad ??= import("./json-editor")
    .then((m) => {
      loadedJsonEditor = m.JsonEditor;
      return m.JsonEditor;
    })
    .catch((err: unknown) => {
      jsonEditorLoad = null;
      throw err;
    });
  return jsonEditorLoad;
}

function useJsonEditor(wanted: boolean): { Editor: JsonEditorComponent | null; failed: boolean } {
  const [Editor, setEditor] = useState<JsonEditorComponent | null>(() => loadedJsonEditor);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (!wanted || Editor) return;
    let live = true;
    setFailed(false);
    loadJsonEditor().then(
      (c) => live && setEditor(() => c),
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, [wanted, Editor]);
  return { Editor, failed };
}

/** The paths `path` is under, itself included: leaving a field touches its containers too. */
function withAncestors(path: FieldPathList): string[] {
  return path.map((_, i) => pathKey(path.slice(0, i + 1)));
}

/** Whether a keydown is Enter in a one-line input, which would submit the form. */
function isImplicitSubmit(e: KeyboardEvent): boolean {
  if (e.key !== "Enter" || e.ctrlKey || e.metaKey || e.altKey || e.shiftKey) return false;
  const t = e.target as HTMLElement;
  return (
    t.tagName === "INPUT" && !["checkbox", "radio", "button", "submit"].includes((t as HTMLInputElement).type)
  );
}

export interface ToolFormProps {
  toolName: string;
  schema: JsonObject;
  value: JsonObject;
  onChange: (value: JsonObject) => void;
  onCall: (value: JsonObject) => void;
  /** A call is in flight or the episode ended. */
  disabled?: boolean;
  disabledReason?: string;
  /** Shown beside the call button (e.g. an Abandon button). */
  actions?: ReactNode;
  /** The tab shown first (default `form`); `json` opens the input in the JSON editor. */
  initialTab?: "form" | "json";
  /** The button's words when the form is not a tool's (a label's: `Save label`); default `Call <tool>`. */
  submitLabel?: string;
}

export function ToolForm({
  toolName,
  schema,
  value,
  onChange,
  onCall,
  disabled,
  disabledReason,
  actions,
  initialTab = "form",
  submitLabel,
}: ToolFormProps) {
  const idBase = useId().replace(/:/g, "");
  const prepared = useMemo(() => prepareSchema(schema) as RJSFSchema, [schema]);
  const [tab, setTab] = useState<"form" | "json">(initialTab);
  const [attempted, setAttempted] = useState(false);
  const [touched, setTouched] = useState<ReadonlySet<string>>(() => new Set());
  const [jsonText, setJsonText] = useState(() => JSON.stringify(value, null, 2));
  const [jsonErrors, setJsonErrors] = useState<string[]>([]);
  const [focusError, setFocusError] = useState(0);
  const [lineModes, setLineModes] = useState<Readonly<Record<string, LineMode>>>({});
  const mapRows = useRef(new Map<string, MapRow[]>());
  const [entryProblems, setEntryProblems] = useState<Readonly<Record<string, readonly string[]>>>({});
  // Entry problems of maps as they stood when the user left the form for the JSON tab.
  const [leftBehind, setLeftBehind] = useState<readonly string[]>([]);
  const formBox = useRef<HTMLDivElement>(null);
  const { Editor, failed: editorFailed } = useJsonEditor(tab === "json");

  const parsed = useMemo(() => parseJsonObject(jsonText), [jsonText]);
  const validation = useMemo(() => validate(prepared, value), [prepared, value]);
  const extraErrors = useMemo<ErrorSchema>(
    () => visibleErrors(validation.errorSchema, (p) => attempted || touched.has(pathKey(p))),
    [validation, attempted, touched],
  );

  // Touches wait while a pointer is pressed: the error they show must not move a button under it.
  const pointerDown = useRef(false);
  const pending = useRef<string[]>([]);
  const flush = useCallback(() => {
    const keys = pending.current;
    pending.current = [];
    if (keys.length)
      setTouched((prev) => (keys.every((k) => prev.has(k)) ? prev : new Set([...prev, ...keys])));
  }, []);
  useEffect(() => {
    const down = () => {
      pointerDown.current = true;
    };
    // After the click that follows the release has been dispatched.
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
  const formUi = useMemo<FormUi>(
    () => ({
      touch(path: FieldPathList) {
        pending.current.push(...withAncestors(path));
        if (!pointerDown.current) flush();
      },
      attempted,
      showsErrors: (path) => attempted || touched.has(pathKey(path)),
      lineMode: (path) => lineModes[pathKey(path)],
      setLineMode: (path, mode) => setLineModes((m) => ({ ...m, [pathKey(path)]: mode })),
      mapRows: mapRows.current,
      reportEntryProblems(mapKey, problems) {
        setEntryProblems((prev) => {
          const before = prev[mapKey] ?? [];
          if (before.length === problems.length && before.every((p, i) => p === problems[i])) return prev;
          const next = { ...prev };
          if (problems.length) next[mapKey] = problems;
          else delete next[mapKey];
          return next;
        });
      },
    }),
    [flush, attempted, touched, lineModes],
  );
  const problems = useMemo(() => Object.values(entryProblems).flat(), [entryProblems]);
  // Keys the form has no field for (kept and sent), and keys `additionalProperties: false` refuses.
  const unshown = useMemo(
    () => unshownKeys(prepared as Record<string, unknown>, parsed.ok ? parsed.value : value),
    [prepared, parsed, value],
  );
  const hidden = unshown.filter((k) => !k.refused).map((k) => keyPathText(k.path));
  const refused = unshown.filter((k) => k.refused).map((k) => keyPathText(k.path));

  // After a refused call, focus the first field showing an error.
  useEffect(() => {
    if (!focusError) return;
    formBox.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [focusError]);

  const switchTab = (next: string) => {
    if (next === "json") {
      setLeftBehind(problems);
      // Keep what was typed while it still means the current value; else show the value.
      const p = parseJsonObject(jsonText);
      if (!p.ok || !jsonEqual(p.value, value)) setJsonText(JSON.stringify(value, null, 2));
      setJsonErrors([]);
    }
    setTab(next as "form" | "json");
  };

  const onJsonChange = (text: string) => {
    setJsonText(text);
    setJsonErrors([]);
    const p = parseJsonObject(text);
    if (p.ok && !jsonEqual(p.value, value)) onChange(p.value);
  };

  const callFromJson = () => {
    setAttempted(true);
    if (!parsed.ok) {
      setJsonErrors([`Invalid JSON: ${parsed.message}`]);
      return;
    }
    const all = validate(prepared, parsed.value).errors;
    // Keys `additionalProperties: false` refuses are listed as they are typed (above the list).
    const errors = errorLines(all.filter((e) => e.name !== "additionalProperties"));
    setJsonErrors(errors);
    if (all.length === 0) onCall(parsed.value);
  };

  const callFromForm = () => {
    setAttempted(true);
    if (validation.errors.length > 0 || problems.length > 0) {
      setFocusError((n) => n + 1);
      return;
    }
    // As sent: fields the form cleared (undefined) are absent.
    onCall(JSON.parse(JSON.stringify(value)) as JsonObject);
  };

  const callNow = () => {
    if (disabled) return;
    if (tab === "json") callFromJson();
    else callFromForm();
  };
  // rjsf's Form skips a re-render when only functions changed (its deep compare ignores them), so
  // the Call button inside it reaches the current callNow through a ref.
  const callRef = useRef(callNow);
  callRef.current = callNow;
  const callCurrent = useCallback(() => callRef.current(), []);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.defaultPrevented) return;
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      callNow();
    } else if (isImplicitSubmit(e)) {
      e.preventDefault();
    }
  };

  const callButton = (
    <div className="flex flex-wrap items-center gap-2 pt-1">
      <Button variant="primary" disabled={disabled} onClick={callCurrent}>
        {submitLabel ?? `Call ${toolName}`}
      </Button>
      <span className="text-xs text-zinc-500 dark:text-zinc-400">
        <Kbd>Ctrl</Kbd>+<Kbd>Enter</Kbd>
      </span>
      {disabled && disabledReason && (
        <span className="text-xs text-zinc-500 dark:text-zinc-400">{disabledReason}</span>
      )}
      <span className="ml-auto flex items-center gap-2">{actions}</span>
    </div>
  );

  const jsonStatusId = `${idBase}-json-status`;
  const jsonLabelId = `${idBase}-json-label`;
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: Ctrl/Cmd+Enter from any field of the form
    <div onKeyDown={onKeyDown} className="flex flex-col gap-3">
      <Tabs
        label={`${toolName} input`}
        idBase={idBase}
        value={tab}
        onValueChange={switchTab}
        items={[
          { value: "form", label: "Form" },
          { value: "json", label: "JSON" },
        ]}
      />
      {tab === "form" ? (
        <TabPanel idBase={idBase} value="form" className="rjsf-tool-form">
          {!parsed.ok && (
            <p className="mb-2 rounded-md border border-amber-300 bg-amber-50 px-2 py-1 text-xs text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200">
              The JSON tab has invalid JSON; the form shows the last valid value.
            </p>
          )}
          {unshown.length > 0 && (
            <p
              role="note"
              className="mb-2 rounded-md border border-amber-300 bg-amber-50 px-2 py-1 text-xs text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200"
            >
              The value has keys this form has no field for (see the JSON tab):{" "}
              {unshown.map((k) => keyPathText(k.path)).join(", ")}.
            </p>
          )}
          <div ref={formBox}>
            <FormUiContext.Provider value={formUi}>
              <ThemedForm
                schema={prepared}
                uiSchema={uiSchema}
                formData={value}
                validator={validator}
                idPrefix={`${idBase}-${toolName}`}
                noHtml5Validate
                experimental_defaultFormStateBehavior={DEFAULTS_BEHAVIOR}
                showErrorList={false}
                extraErrors={extraErrors}
                onChange={(e) => {
                  const next = (e.formData ?? {}) as JsonObject;
                  if (!jsonEqual(next, value)) onChange(next);
                }}
                // Only Call submits (Enter in a field is not a call).
                onSubmit={() => {}}
              >
                {callButton}
              </ThemedForm>
            </FormUiContext.Provider>
          </div>
        </TabPanel>
      ) : (
        <TabPanel idBase={idBase} value="json" className="flex flex-col gap-2">
          <span id={jsonLabelId} className="text-xs font-medium text-zinc-700 dark:text-zinc-300">
            Input JSON of {toolName}
          </span>
          {Editor ? (
            <Editor
              value={jsonText}
              onChange={onJsonChange}
              onSubmit={callNow}
              schema={schema}
              labelledBy={jsonLabelId}
              describedBy={jsonStatusId}
              invalid={!parsed.ok || jsonErrors.length > 0}
            />
          ) : editorFailed ? (
            <p role="alert" className="text-sm text-red-700 dark:text-red-400">
              Could not load the JSON editor. Switch tabs to try again.
            </p>
          ) : (
            <div
              role="status"
              className="h-40 animate-pulse rounded-md border border-zinc-200 bg-zinc-50 dark:border-zinc-800 dark:bg-zinc-900"
            >
              <span className="sr-only">Loading the JSON editor</span>
            </div>
          )}
          <JsonStatus
            id={jsonStatusId}
            invalid={parsed.ok ? null : parsed.message}
            refused={refused}
            hidden={hidden}
            errors={jsonErrors}
            leftBehind={leftBehind}
          />
          {callButton}
        </TabPanel>
      )}
    </div>
  );
}
