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
import type { ErrorSchema, RJSFSchema, UiSchema } from "@rjsf/utils";
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
import { type JsonParse, jsonEqual, parseJsonObject } from "./json-text";
import { prepareSchema } from "./prepare-schema";
import { standInValidator } from "./stand-in-validator";
import { ThemedForm } from "./theme";
import { type ToolFormTab, useToolFormState } from "./tool-form-state";
import { keyPathText, type UnshownKey, unshownKeys } from "./unshown-keys";
import {
  errorLines,
  type FormUi,
  FormUiContext,
  type FormValidator,
  loadValidator,
  pathKey,
  useValidator,
  validate,
  visibleErrors,
} from "./validation";

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

const noticeClasses =
  "mb-2 rounded-md border border-amber-300 bg-amber-50 px-2 py-1 text-xs text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200";

/** The Call button with its shortcut, the reason it is disabled, and the caller's actions beside it. */
function CallBar({
  toolName,
  disabled,
  disabledReason,
  actions,
  onCall,
  submitLabel,
}: Pick<ToolFormProps, "toolName" | "disabled" | "disabledReason" | "actions" | "submitLabel"> & {
  onCall: () => void;
}) {
  return (
    <div className="flex flex-wrap items-center gap-2 pt-1">
      <Button variant="primary" disabled={disabled} onClick={onCall}>
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
}

/** The Form tab: rjsf's form of the value, with notes when the JSON tab holds what it cannot show. */
function FormTab({
  idBase,
  toolName,
  schema,
  value,
  onChange,
  formUi,
  validator,
  extraErrors,
  jsonInvalid,
  unshown,
  focusError,
  children,
}: {
  idBase: string;
  toolName: string;
  schema: RJSFSchema;
  validator: FormValidator;
  value: JsonObject;
  onChange: (value: JsonObject) => void;
  formUi: FormUi;
  extraErrors: ErrorSchema;
  jsonInvalid: boolean;
  unshown: UnshownKey[];
  focusError: number;
  children: ReactNode;
}) {
  const box = useRef<HTMLDivElement>(null);
  // After a refused call, focus the first field showing an error.
  useEffect(() => {
    if (!focusError) return;
    box.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [focusError]);
  return (
    <TabPanel idBase={idBase} value="form">
      {jsonInvalid && (
        <p className={noticeClasses}>The JSON tab has invalid JSON; the form shows the last valid value.</p>
      )}
      {unshown.length > 0 && (
        <p role="note" className={noticeClasses}>
          The value has keys this form has no field for (see the JSON tab):{" "}
          {unshown.map((k) => keyPathText(k.path)).join(", ")}.
        </p>
      )}
      <div ref={box}>
        <FormUiContext.Provider value={formUi}>
          <ThemedForm
            schema={schema}
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
            {children}
          </ThemedForm>
        </FormUiContext.Provider>
      </div>
    </TabPanel>
  );
}

/** The JSON tab: the editor (its chunk loaded on first use) and what the value holds that the form does not. */
function JsonTab({
  idBase,
  toolName,
  schema,
  text,
  parsed,
  errors,
  unshown,
  leftBehind,
  onText,
  onCall,
  children,
}: {
  idBase: string;
  toolName: string;
  schema: JsonObject;
  text: string;
  parsed: JsonParse;
  errors: string[];
  unshown: UnshownKey[];
  leftBehind: readonly string[];
  onText: (text: string) => void;
  onCall: () => void;
  children: ReactNode;
}) {
  const { Editor, failed } = useJsonEditor(true);
  const statusId = `${idBase}-json-status`;
  const labelId = `${idBase}-json-label`;
  return (
    <TabPanel idBase={idBase} value="json" className="flex flex-col gap-2">
      <span id={labelId} className="text-xs font-medium text-zinc-700 dark:text-zinc-300">
        Input JSON of {toolName}
      </span>
      {Editor ? (
        <Editor
          value={text}
          onChange={onText}
          onSubmit={onCall}
          schema={schema}
          labelledBy={labelId}
          describedBy={statusId}
          invalid={!parsed.ok || errors.length > 0}
        />
      ) : failed ? (
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
        id={statusId}
        invalid={parsed.ok ? null : parsed.message}
        refused={unshown.filter((k) => k.refused).map((k) => keyPathText(k.path))}
        hidden={unshown.filter((k) => !k.refused).map((k) => keyPathText(k.path))}
        errors={errors}
        leftBehind={leftBehind}
      />
      {children}
    </TabPanel>
  );
}

export function ToolForm(props: ToolFormProps) {
  const { toolName, schema, value, onChange, onCall, disabled, initialTab = "form" } = props;
  const idBase = useId().replace(/:/g, "");
  const prepared = useMemo(() => prepareSchema(schema) as RJSFSchema, [schema]);
  const { state, dispatch, formUi, problems } = useToolFormState(initialTab, value);
  const { tab, attempted, touched, jsonText } = state;

  const parsed = useMemo(() => parseJsonObject(jsonText), [jsonText]);
  // Errors show once AJV is in (rjsf resolves schemas with a stand-in until then).
  const ajv = useValidator();
  const validation = useMemo(() => (ajv ? validate(ajv, prepared, value) : null), [ajv, prepared, value]);
  const extraErrors = useMemo<ErrorSchema>(
    () =>
      validation ? visibleErrors(validation.errorSchema, (p) => attempted || touched.has(pathKey(p))) : {},
    [validation, attempted, touched],
  );
  // Keys the form has no field for (kept and sent), and keys `additionalProperties: false` refuses.
  const unshown = useMemo(
    () => unshownKeys(prepared as Record<string, unknown>, parsed.ok ? parsed.value : value),
    [prepared, parsed, value],
  );

  const onJsonText = (text: string) => {
    dispatch({ type: "jsonText", text });
    const p = parseJsonObject(text);
    if (p.ok && !jsonEqual(p.value, value)) onChange(p.value);
  };

  // A call waits for AJV's verdict when it comes before AJV's code (it rarely does).
  const callFromJson = async () => {
    if (!parsed.ok) return dispatch({ type: "attempt", jsonErrors: [`Invalid JSON: ${parsed.message}`] });
    const all = validate(ajv ?? (await loadValidator()), prepared, parsed.value).errors;
    // Keys `additionalProperties: false` refuses are listed as they are typed (above the list).
    dispatch({
      type: "attempt",
      jsonErrors: errorLines(all.filter((e) => e.name !== "additionalProperties")),
    });
    if (all.length === 0) onCall(parsed.value);
  };

  const callFromForm = async () => {
    const errors = validation?.errors ?? validate(await loadValidator(), prepared, value).errors;
    if (errors.length > 0 || problems.length > 0) return dispatch({ type: "attempt", focusError: true });
    dispatch({ type: "attempt" });
    // As sent: fields the form cleared (undefined) are absent.
    onCall(JSON.parse(JSON.stringify(value)) as JsonObject);
  };

  const callNow = () => {
    if (disabled) return;
    void (tab === "json" ? callFromJson() : callFromForm());
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

  // The Call bar takes the form's own props (its words, disabled and why, the actions) and calls through the ref.
  const callBar = <CallBar {...props} onCall={callCurrent} />;
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: Ctrl/Cmd+Enter from any field of the form
    <div onKeyDown={onKeyDown} className="flex flex-col gap-3">
      <Tabs
        label={`${toolName} input`}
        idBase={idBase}
        value={tab}
        onValueChange={(next) => dispatch({ type: "tab", tab: next as ToolFormTab, value })}
        items={[
          { value: "form", label: "Form" },
          { value: "json", label: "JSON" },
        ]}
      />
      {tab === "form" ? (
        <FormTab
          idBase={idBase}
          toolName={toolName}
          schema={prepared}
          value={value}
          onChange={onChange}
          formUi={formUi}
          validator={ajv ?? standInValidator}
          extraErrors={extraErrors}
          jsonInvalid={!parsed.ok}
          unshown={unshown}
          focusError={state.focusError}
        >
          {callBar}
        </FormTab>
      ) : (
        <JsonTab
          idBase={idBase}
          toolName={toolName}
          schema={schema}
          text={jsonText}
          parsed={parsed}
          errors={state.jsonErrors}
          unshown={unshown}
          leftBehind={state.leftBehind}
          onText={onJsonText}
          onCall={callNow}
        >
          {callBar}
        </JsonTab>
      )}
    </div>
  );
}
