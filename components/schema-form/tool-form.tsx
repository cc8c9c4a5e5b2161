"use client";
import type Form from "@rjsf/core";
// The form of one tool, generated from its input_schema by react-jsonschema-form (shadcn theme,
// AJV 8 validator), with a JSON tab that edits the same value: the parent holds the one value;
// the JSON text is kept as typed while it parses to that value (never re-escaped), and invalid
// JSON shows an error without touching the value. Ctrl/Cmd+Enter calls from either tab.
import { withTheme } from "@rjsf/core";
import CheckboxesWidget from "@rjsf/shadcn/lib/CheckboxesWidget/CheckboxesWidget.js";
import CheckboxWidget from "@rjsf/shadcn/lib/CheckboxWidget/CheckboxWidget.js";
import RadioWidget from "@rjsf/shadcn/lib/RadioWidget/RadioWidget.js";
import RangeWidget from "@rjsf/shadcn/lib/RangeWidget/RangeWidget.js";
import { generateTemplates } from "@rjsf/shadcn/lib/Templates/Templates.js";
import TextareaWidget from "@rjsf/shadcn/lib/TextareaWidget/TextareaWidget.js";
import { createSchemaUtils, type RJSFSchema, type RJSFValidationError, type UiSchema } from "@rjsf/utils";
import validator from "@rjsf/validator-ajv8";
import { type KeyboardEvent, type ReactNode, useEffect, useId, useMemo, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { Kbd } from "@/components/ui/kbd";
import { TabPanel, Tabs } from "@/components/ui/tabs";
import type { JsonObject } from "@/lib/ors/protocol";
import { cn } from "@/lib/ui/cn";
import { jsonEqual, parseJsonObject } from "./json-text";
import { NativeSelectWidget } from "./native-select-widget";
import { prepareSchema } from "./prepare-schema";

// The shadcn theme, assembled here so its searchable select (cmdk + a dialog, ~40 kB) is not
// bundled: enums and union variants use a native <select> with a real <label>.
const ThemedForm = withTheme({
  templates: generateTemplates(),
  widgets: {
    CheckboxWidget,
    CheckboxesWidget,
    RadioWidget,
    RangeWidget,
    TextareaWidget,
    SelectWidget: NativeSelectWidget,
  },
});

/** Defaults of required fields only; prepareSchema makes every primitive with a default required. */
const DEFAULTS_BEHAVIOR = { emptyObjectFields: "populateRequiredDefaults" } as const;

const uiSchema: UiSchema = {
  "ui:submitButtonOptions": { norender: true },
  // Optional objects start absent, with an "add" control, instead of half-filled with defaults.
  "ui:globalOptions": { enableOptionalDataFieldForType: ["object"] },
};

/** The value with the schema's defaults filled in (what the form shows), so both tabs agree. */
export function withDefaults(schema: JsonObject, value: JsonObject): JsonObject {
  try {
    const utils = createSchemaUtils(validator, prepareSchema(schema) as RJSFSchema, DEFAULTS_BEHAVIOR);
    const filled = utils.getDefaultFormState(prepareSchema(schema) as RJSFSchema, value);
    return filled && typeof filled === "object" && !Array.isArray(filled) ? (filled as JsonObject) : value;
  } catch {
    return value;
  }
}

/** Shorter, plainer messages than AJV's defaults. */
export function transformErrors(errors: RJSFValidationError[]): RJSFValidationError[] {
  return errors.map((e) => {
    if (e.name === "required") return { ...e, message: "is required" };
    if (e.name === "pattern")
      return { ...e, message: `must match ${String(e.params?.pattern ?? "the pattern")}` };
    if (e.name === "format")
      return { ...e, message: `must be a valid ${String(e.params?.format ?? "value")}` };
    return e;
  });
}

/** Validates `value` against `schema` with the form's validator; returns readable errors. */
export function validateInput(schema: JsonObject, value: JsonObject): string[] {
  const { errors } = validator.validateFormData(value, schema as RJSFSchema, undefined, transformErrors);
  return errors.map(
    (e) =>
      `${e.property && e.property !== "." ? `${e.property.replace(/^\./, "")}: ` : ""}${e.message ?? "invalid"}`,
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
}: ToolFormProps) {
  const idBase = useId().replace(/:/g, "");
  const prepared = useMemo(() => prepareSchema(schema) as RJSFSchema, [schema]);
  const [tab, setTab] = useState<"form" | "json">("form");
  const [attempted, setAttempted] = useState(false);
  const [jsonText, setJsonText] = useState(() => JSON.stringify(value, null, 2));
  const [jsonErrors, setJsonErrors] = useState<string[]>([]);
  const formRef = useRef<Form>(null);

  const parsed = useMemo(() => parseJsonObject(jsonText), [jsonText]);

  // Fill the schema's defaults into the value once, so the form and the JSON tab show the same thing.
  const filledOnce = useRef(false);
  useEffect(() => {
    if (filledOnce.current) return;
    filledOnce.current = true;
    const filled = withDefaults(schema, value);
    if (!jsonEqual(filled, value)) {
      onChange(filled);
      setJsonText(JSON.stringify(filled, null, 2));
    }
  }, [schema, value, onChange]);

  const switchTab = (next: string) => {
    if (next === "json") {
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
    const errors = validateInput(schema, parsed.value);
    setJsonErrors(errors);
    if (errors.length === 0) onCall(parsed.value);
  };

  const callNow = () => {
    if (disabled) return;
    if (tab === "json") callFromJson();
    else formRef.current?.submit();
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      callNow();
    }
  };

  const callButton = (
    <div className="flex flex-wrap items-center gap-2 pt-1">
      <Button
        type="submit"
        variant="primary"
        disabled={disabled}
        onClick={tab === "json" ? callFromJson : undefined}
      >
        Call {toolName}
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
          <ThemedForm
            ref={formRef}
            schema={prepared}
            uiSchema={uiSchema}
            formData={value}
            validator={validator}
            idPrefix={`${idBase}-${toolName}`}
            noHtml5Validate
            experimental_defaultFormStateBehavior={DEFAULTS_BEHAVIOR}
            showErrorList={false}
            liveValidate={attempted ? "onChange" : "onBlur"}
            focusOnFirstError
            transformErrors={transformErrors}
            onChange={(e) => {
              const next = (e.formData ?? {}) as JsonObject;
              if (!jsonEqual(next, value)) onChange(next);
            }}
            onError={(_errors: RJSFValidationError[]) => setAttempted(true)}
            onSubmit={(e) => {
              setAttempted(true);
              if (!disabled) onCall((e.formData ?? {}) as JsonObject);
            }}
          >
            {callButton}
          </ThemedForm>
        </TabPanel>
      ) : (
        <TabPanel idBase={idBase} value="json" className="flex flex-col gap-2">
          <label htmlFor={`${idBase}-json`} className="text-xs font-medium text-zinc-700 dark:text-zinc-300">
            Input JSON of {toolName}
          </label>
          <textarea
            id={`${idBase}-json`}
            value={jsonText}
            onChange={(e) => onJsonChange(e.target.value)}
            spellCheck={false}
            rows={Math.min(24, Math.max(6, jsonText.split("\n").length + 1))}
            aria-invalid={!parsed.ok || jsonErrors.length > 0 || undefined}
            aria-describedby={`${idBase}-json-status`}
            className={cn(
              "w-full rounded-md border bg-white p-2 font-mono text-[13px] leading-5 text-zinc-900 shadow-xs dark:bg-zinc-900 dark:text-zinc-100",
              parsed.ok ? "border-zinc-300 dark:border-zinc-700" : "border-red-500",
            )}
          />
          <div id={`${idBase}-json-status`} className="text-xs" aria-live="polite">
            {!parsed.ok ? (
              <p className="text-red-600 dark:text-red-400">Invalid JSON: {parsed.message}</p>
            ) : jsonErrors.length ? (
              <ul className="list-disc pl-5 text-red-600 dark:text-red-400">
                {jsonErrors.map((e) => (
                  <li key={e}>{e}</li>
                ))}
              </ul>
            ) : (
              <p className="text-zinc-500 dark:text-zinc-400">
                Valid JSON object; the form shows the same value.
              </p>
            )}
          </div>
          {callButton}
        </TabPanel>
      )}
    </div>
  );
}
