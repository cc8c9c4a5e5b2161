"use client";
// The input widgets of generated forms, in the app's look (zinc/indigo, light and dark): one-line
// inputs for short values (Enter never changes the value and never calls: it confirms the field,
// showing its errors), growing text areas for free text (Enter types a new line; only Ctrl/Cmd+Enter
// calls), a per-field switch between the two, a flag beside a value that starts or ends with
// whitespace (it is sent as typed), native checkboxes and selects with real labels, and a none/set
// choice for an optional model (`Optional[Point]`). A field with a default shows it as its placeholder.
import type { BaseInputTemplateProps, WidgetProps } from "@rjsf/utils";
import {
  ariaDescribedByIds,
  enumOptionsIndexForValue,
  enumOptionsValueForIndex,
  getInputProps,
  getSchemaType,
} from "@rjsf/utils";
import { WrapText } from "lucide-react";
import { type ChangeEvent, type FocusEvent, type KeyboardEvent, useContext } from "react";
import { cn } from "@/lib/ui/cn";
import { FieldName, ownName, pathName, useField } from "./field-names";
import { isFreeText, showDefault, titleHint } from "./schema-utils";
import { FormUiContext } from "./validation";

export const inputClasses =
  "w-full rounded-md border border-zinc-300 bg-white px-2.5 text-sm text-zinc-900 shadow-xs placeholder:text-zinc-400 focus-visible:border-indigo-500 disabled:cursor-not-allowed disabled:opacity-50 read-only:bg-zinc-50 read-only:text-zinc-600 aria-[invalid=true]:border-red-500 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:placeholder:text-zinc-500 dark:read-only:bg-zinc-800/60 dark:read-only:text-zinc-400 dark:aria-[invalid=true]:border-red-400";

/** The placeholder of an empty field: the default the server fills in, else the schema's example. */
export function placeholderOf(schema: Record<string, unknown>, placeholder?: string): string | undefined {
  if (placeholder) return placeholder;
  if (schema.default !== undefined) return showDefault(schema.default);
  if (Array.isArray(schema.examples) && schema.examples.length) return showDefault(schema.examples[0]);
  return undefined;
}

type Control = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;

/**
 * What every native control of a widget carries: its id, autofocus (only when the uiSchema asks for
 * it), blur and focus told to rjsf with the control's value as `read` takes it, and aria-invalid
 * while the field shows errors.
 */
function controlProps<E extends Control>(
  p: Pick<WidgetProps, "id" | "autofocus" | "onBlur" | "onFocus" | "rawErrors">,
  read: (el: E) => unknown,
) {
  return {
    id: p.id,
    autoFocus: p.autofocus,
    onBlur: (e: FocusEvent<E>) => p.onBlur(p.id, read(e.target)),
    onFocus: (e: FocusEvent<E>) => p.onFocus(p.id, read(e.target)),
    "aria-invalid": (p.rawErrors ?? []).length > 0 || undefined,
  };
}

/** The one-line `<input>` of text, number, e-mail, URL, date… fields. */
export function BaseInputTemplate(props: BaseInputTemplateProps) {
  const { id, htmlName, placeholder, required, readonly, disabled, type, value, onChange, onChangeOverride } =
    props;
  const { options, schema, extraProps, className } = props;
  const field = useField();
  const ui = useContext(FormUiContext);
  const inputProps = { ...extraProps, ...getInputProps(schema, type, options) };
  const handleChange = ({ target }: ChangeEvent<HTMLInputElement>) =>
    onChange(target.value === "" ? options.emptyValue : target.value);
  // Enter in a one-line field confirms it: its errors show; the value stays, nothing is called.
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key !== "Enter" || e.nativeEvent.isComposing || e.ctrlKey || e.metaKey || e.altKey) return;
    e.preventDefault();
    if (field) ui.touch(field.path);
  };
  const describedBy = [ariaDescribedByIds(id, !!schema.examples), extraProps?.["aria-describedby"]]
    .filter(Boolean)
    .join(" ");
  return (
    <input
      name={htmlName || id}
      placeholder={placeholderOf(schema, placeholder)}
      required={required}
      disabled={disabled}
      readOnly={readonly}
      {...inputProps}
      value={value || value === 0 ? value : ""}
      onChange={onChangeOverride || handleChange}
      onKeyDown={onKeyDown}
      {...controlProps(props, (el: HTMLInputElement) => el.value)}
      aria-describedby={describedBy}
      className={cn(inputClasses, "h-9", className)}
    />
  );
}

/** A text area that grows with its text, starting one line high. */
export function TextareaWidget(props: WidgetProps & { describedBy?: string }) {
  const { id, htmlName, placeholder, value, required, disabled, readonly, onChange, options, schema } = props;
  return (
    <textarea
      {...controlProps(props, (el: HTMLTextAreaElement) => el.value)}
      name={htmlName || id}
      placeholder={placeholderOf(schema, placeholder)}
      value={value ?? ""}
      required={required}
      disabled={disabled}
      readOnly={readonly}
      rows={typeof options.rows === "number" ? options.rows : 1}
      maxLength={typeof schema.maxLength === "number" ? schema.maxLength : undefined}
      onChange={({ target }) => onChange(target.value === "" ? options.emptyValue : target.value)}
      aria-describedby={[ariaDescribedByIds(id), props.describedBy].filter(Boolean).join(" ")}
      className={cn(inputClasses, "field-sizing-content block min-h-9 max-h-72 resize-y py-1.5 leading-5")}
    />
  );
}

/** How many of what: `a space`, `2 line breaks`. */
function count(n: number, one: string, many: string): string {
  return n === 1 ? `a ${one}` : `${n} ${many}`;
}

/** Whitespace in words: `a space and a line break`. */
export function describeWhitespace(ws: string): string {
  let spaces = 0;
  let tabs = 0;
  let breaks = 0;
  let other = 0;
  for (const c of ws.replace(/\r\n?/g, "\n")) {
    if (c === " ") spaces++;
    else if (c === "\t") tabs++;
    else if (c === "\n") breaks++;
    else other++;
  }
  const parts = [
    spaces ? count(spaces, "space", "spaces") : "",
    tabs ? count(tabs, "tab", "tabs") : "",
    breaks ? count(breaks, "line break", "line breaks") : "",
    other ? count(other, "other blank character", "other blank characters") : "",
  ].filter(Boolean);
  return parts.length > 1 ? `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}` : (parts[0] ?? "");
}

/**
 * What a string's leading and trailing whitespace is, in words, or null when it has none:
 * `ends with a line break`, `starts with a space and ends with 2 spaces`, `is only whitespace (a tab)`.
 */
export function whitespaceNotice(value: string): string | null {
  if (value === "") return null;
  if (value.trim() === "") return `is only whitespace (${describeWhitespace(value)})`;
  const lead = /^\s+/.exec(value)?.[0];
  const trail = /\s+$/.exec(value)?.[0];
  const parts = [
    lead ? `starts with ${describeWhitespace(lead)}` : "",
    trail ? `ends with ${describeWhitespace(trail)}` : "",
  ].filter(Boolean);
  return parts.length ? parts.join(" and ") : null;
}

/** The flag beside a value with leading or trailing whitespace: what it is, and a Trim button. */
function WhitespaceFlag({
  id,
  name,
  notice,
  onTrim,
  disabled,
}: {
  id: string;
  name: string;
  notice: string;
  onTrim: () => void;
  disabled?: boolean;
}) {
  return (
    <p
      id={id}
      className="flex flex-wrap items-center gap-x-2 gap-y-0.5 rounded-md border border-amber-300 bg-amber-50 px-2 py-0.5 text-[11px] text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200"
    >
      <span>
        <span className="font-semibold">Whitespace:</span> the value {notice}; it is sent as typed.
      </span>
      <button
        type="button"
        onClick={onTrim}
        disabled={disabled}
        className="rounded px-1 font-medium underline underline-offset-2 hover:bg-amber-100 disabled:opacity-50 dark:hover:bg-amber-900"
      >
        Trim <span className="sr-only">{name}</span>
      </button>
    </p>
  );
}

/**
 * A string field: a one-line input for a short value, a growing text area for free text (see
 * `isFreeText`), as the user switches it; a value holding a line break is always shown in a text
 * area (a one-line input would hide the break, and the next keystroke would drop it).
 */
function StringWidget(props: WidgetProps) {
  const { id, value, schema, disabled, readonly, onChange, options } = props;
  const field = useField();
  const ui = useContext(FormUiContext);
  const path = field?.path ?? [id];
  const last = path[path.length - 1];
  const text = typeof value === "string" ? value : "";
  const hasBreak = /[\r\n]/.test(text);
  const chosen = ui.lineMode(path);
  const auto = isFreeText({ ...schema, type: "string" }, typeof last === "string" ? last : undefined);
  const area = hasBreak || (chosen ? chosen === "area" : auto);
  // A format (date, e-mail, URL...) keeps its own input type.
  const switchable = schema.format === undefined && !readonly;
  const notice = whitespaceNotice(text);
  const flagId = `${id}__whitespace`;
  const name = pathName(path);
  const trim = () => {
    const t = text.trim();
    onChange(t === "" ? options.emptyValue : t);
  };
  return (
    <div className="flex min-w-0 flex-col gap-1">
      <div className="flex min-w-0 items-start gap-1">
        <div className="min-w-0 flex-1">
          {area ? (
            <TextareaWidget {...props} describedBy={notice ? flagId : undefined} />
          ) : (
            <BaseInputTemplate
              {...(props as BaseInputTemplateProps)}
              extraProps={notice ? { "aria-describedby": flagId } : undefined}
            />
          )}
        </div>
        {switchable && (
          <button
            type="button"
            aria-pressed={area}
            disabled={disabled || (area && hasBreak)}
            onClick={() => ui.setLineMode(path, area ? "line" : "area")}
            title={
              area && hasBreak
                ? "Multi-line: the value has line breaks (remove them to type it on one line)"
                : area
                  ? "Multi-line: Enter adds a line. Press for one line"
                  : "One line: Enter adds nothing. Press for several lines"
            }
            className={cn(
              "inline-flex size-9 shrink-0 items-center justify-center rounded-md border text-zinc-500 hover:bg-zinc-100 hover:text-zinc-900 disabled:cursor-not-allowed disabled:opacity-50 dark:text-zinc-400 dark:hover:bg-zinc-800 dark:hover:text-zinc-100 [&_svg]:size-3.5",
              area
                ? "border-indigo-300 bg-indigo-50 text-indigo-700 dark:border-indigo-700 dark:bg-indigo-950 dark:text-indigo-300"
                : "border-transparent",
            )}
          >
            <WrapText aria-hidden="true" />
            <span className="sr-only">{name} multi-line</span>
          </button>
        )}
      </div>
      {notice && (
        <WhitespaceFlag
          id={flagId}
          name={name}
          notice={notice}
          onTrim={trim}
          disabled={disabled || readonly}
        />
      )}
    </div>
  );
}

/** Text fields: strings as above; numbers and other one-line values in an `<input>`. */
export function TextWidget(props: WidgetProps) {
  const type = getSchemaType(props.schema);
  if (type === "string") return <StringWidget {...props} />;
  return <BaseInputTemplate {...(props as BaseInputTemplateProps)} />;
}

/** A native checkbox (its label beside it); unset, it shows the default the server applies. */
export function CheckboxWidget(props: WidgetProps) {
  const { id, htmlName, value, disabled, readonly, onChange, schema } = props;
  const field = useField();
  const path = field?.path ?? [id];
  const checked = typeof value === "boolean" ? value : schema.default === true;
  const hint = titleHint(ownName(path), schema.title);
  return (
    <div className="flex items-center gap-2 py-0.5">
      <input
        type="checkbox"
        {...controlProps(props, (el: HTMLInputElement) => el.checked)}
        name={htmlName || id}
        checked={checked}
        disabled={disabled || readonly}
        onChange={(e) => onChange(e.target.checked)}
        aria-describedby={ariaDescribedByIds(id)}
        className="size-4 shrink-0 cursor-pointer rounded border-zinc-300 accent-indigo-600 disabled:cursor-not-allowed dark:accent-indigo-400"
      />
      <label
        htmlFor={id}
        className="cursor-pointer font-mono text-xs font-medium text-zinc-800 dark:text-zinc-200"
      >
        <FieldName path={path} />
        {field?.required && (
          <span aria-hidden="true" className="ml-0.5 text-red-600 dark:text-red-400">
            *
          </span>
        )}
      </label>
      {hint && <span className="text-[11px] text-zinc-500 dark:text-zinc-400">{hint}</span>}
      {typeof value !== "boolean" && schema.default !== undefined && (
        <span className="text-[11px] text-zinc-500 dark:text-zinc-400">
          default {showDefault(schema.default)}
        </span>
      )}
    </div>
  );
}

const selectClasses =
  "h-9 w-full rounded-md border border-zinc-300 bg-white px-2 text-sm text-zinc-900 shadow-xs focus-visible:border-indigo-500 disabled:opacity-50 aria-[invalid=true]:border-red-500 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100";

/**
 * A native <select> for enums and union options: a real <label> works with it, the keyboard and
 * screen readers know it, and it costs no extra JavaScript. An optional enum offers an empty
 * choice that reads as the default the server applies.
 */
export function NativeSelectWidget(props: WidgetProps) {
  const { id, options, value, required, disabled, readonly, multiple, onChange, placeholder, schema } = props;
  const field = useField();
  const { enumOptions = [], enumDisabled, emptyValue } = options;
  const isUnionSelector = /__(any|one)of_select$/.test(id);
  const selected = enumOptionsIndexForValue(value, enumOptions, multiple);
  const toValue = (v: string | string[]) => enumOptionsValueForIndex(v, enumOptions, emptyValue);
  const handleChange = (e: ChangeEvent<HTMLSelectElement>) => {
    if (multiple) onChange(toValue(Array.from(e.target.selectedOptions, (o) => o.value)));
    else onChange(e.target.value === "" ? emptyValue : toValue(e.target.value));
  };
  const hasDefault = !isUnionSelector && schema.default !== undefined;
  const showEmpty = !multiple && !isUnionSelector && (!required || selected === undefined);
  const emptyLabel = placeholder || (hasDefault ? `${showDefault(schema.default)} (default)` : "choose…");
  const select = (
    <select
      {...controlProps(props, (el: HTMLSelectElement) => toValue(el.value))}
      name={id}
      multiple={multiple}
      value={multiple ? ((selected as string[] | undefined) ?? []) : ((selected as string | undefined) ?? "")}
      required={required}
      disabled={disabled || readonly}
      aria-describedby={ariaDescribedByIds(id)}
      onChange={handleChange}
      className={cn(
        selectClasses,
        multiple && "h-auto min-h-20 py-1",
        isUnionSelector && "font-mono text-[13px]",
      )}
    >
      {showEmpty && <option value="">{emptyLabel}</option>}
      {enumOptions.map((opt, i) => (
        <option
          key={String(i)}
          value={String(i)}
          disabled={Array.isArray(enumDisabled) && enumDisabled.includes(opt.value)}
        >
          {opt.label}
        </option>
      ))}
    </select>
  );
  if (!isUnionSelector) return select;
  // The selector of a union's option names the union's field (its label is not rendered elsewhere).
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="font-mono text-xs font-medium text-zinc-800 dark:text-zinc-200">
        <FieldName path={field?.path ?? [id]} />
        {field?.required && (
          <span aria-hidden="true" className="ml-0.5 text-red-600 dark:text-red-400">
            *
          </span>
        )}
      </label>
      {select}
    </div>
  );
}

/**
 * The choice between none and a value for an optional model (`anyOf [$ref, null]`): two radio
 * buttons, "none" (the field is not sent, or null) and "set" (its fields appear below).
 */
export function NullableChoiceWidget({ id, options, value, onChange, disabled, readonly }: WidgetProps) {
  const field = useField();
  const path = field?.path ?? [id];
  const enumOptions = options.enumOptions ?? [];
  const nullIndex = typeof options.nullIndex === "number" ? options.nullIndex : enumOptions.length - 1;
  const setIndex = nullIndex === 0 ? 1 : 0;
  const setTitle = enumOptions[setIndex]?.label;
  const current = typeof value === "number" ? value : nullIndex;
  const prefix = pathName(path);
  const choice = (index: number, text: string, hint?: string) => (
    <label className="inline-flex cursor-pointer items-center gap-1.5 text-xs text-zinc-700 dark:text-zinc-300">
      <input
        type="radio"
        name={id}
        id={`${id}-${index}`}
        checked={current === index}
        disabled={disabled || readonly}
        onChange={() => onChange(index)}
        className="size-3.5 accent-indigo-600 dark:accent-indigo-400"
      />
      <span className="sr-only">{prefix}</span> {text}
      {hint && (
        <>
          {" "}
          <span className="font-mono text-[11px] text-zinc-500 dark:text-zinc-400">({hint})</span>
        </>
      )}
    </label>
  );
  return (
    <fieldset className="flex flex-wrap items-center gap-x-3 gap-y-1">
      <legend className="float-left mr-3 font-mono text-xs font-medium text-zinc-800 dark:text-zinc-200">
        <span id={`${id}__name`}>
          <FieldName path={path} />
          {field?.required && (
            <span aria-hidden="true" className="ml-0.5 text-red-600 dark:text-red-400">
              *
            </span>
          )}
        </span>
      </legend>
      {choice(nullIndex, "none")}
      {choice(setIndex, "set", setTitle && setTitle !== "null" ? setTitle : undefined)}
    </fieldset>
  );
}
