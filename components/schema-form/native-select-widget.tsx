"use client";
// A native <select> for enums and union options in generated forms: a real <label> works with it
// (the theme's searchable select has no labelled control), the keyboard and screen readers know it,
// and it costs no extra JavaScript.
import type { WidgetProps } from "@rjsf/utils";
import { ariaDescribedByIds, enumOptionsIndexForValue, enumOptionsValueForIndex } from "@rjsf/utils";
import type { ChangeEvent, FocusEvent } from "react";
import { cn } from "@/lib/ui/cn";

const selectClasses =
  "h-9 w-full rounded-md border border-zinc-300 bg-white px-2 text-sm text-zinc-900 shadow-xs focus-visible:border-indigo-500 disabled:opacity-50 aria-[invalid=true]:border-red-500 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100";

export function NativeSelectWidget({
  id,
  options,
  value,
  required,
  disabled,
  readonly,
  multiple,
  autofocus,
  onChange,
  onBlur,
  onFocus,
  placeholder,
  rawErrors = [],
  label,
  hideLabel,
  schema,
}: WidgetProps) {
  const { enumOptions = [], enumDisabled, emptyValue } = options;
  const isUnionSelector = /__(any|one)of_select$/.test(id);
  const selected = enumOptionsIndexForValue(value, enumOptions, multiple);
  const toValue = (v: string | string[]) => enumOptionsValueForIndex(v, enumOptions, emptyValue);
  const handleChange = (e: ChangeEvent<HTMLSelectElement>) => {
    if (multiple) onChange(toValue(Array.from(e.target.selectedOptions, (o) => o.value)));
    else onChange(e.target.value === "" ? emptyValue : toValue(e.target.value));
  };
  const handleBlur = (e: FocusEvent<HTMLSelectElement>) => onBlur(id, toValue(e.target.value));
  const handleFocus = (e: FocusEvent<HTMLSelectElement>) => onFocus(id, toValue(e.target.value));
  const showEmpty = !multiple && (schema.default === undefined || !required);
  return (
    <div className={cn("flex flex-col gap-1.5 p-0.5", isUnionSelector && "mb-1")}>
      {isUnionSelector && (
        <label htmlFor={id} className="text-xs font-medium text-zinc-600 dark:text-zinc-400">
          {hideLabel || !label ? "Variant" : `${label}: variant`}
        </label>
      )}
      <select
        id={id}
        name={id}
        multiple={multiple}
        value={
          multiple ? ((selected as string[] | undefined) ?? []) : ((selected as string | undefined) ?? "")
        }
        required={required}
        disabled={disabled || readonly}
        // biome-ignore lint/a11y/noAutofocus: only when the schema's uiSchema asks for it
        autoFocus={autofocus}
        aria-invalid={rawErrors.length > 0 || undefined}
        aria-describedby={ariaDescribedByIds(id)}
        onChange={handleChange}
        onBlur={handleBlur}
        onFocus={handleFocus}
        className={cn(
          selectClasses,
          multiple && "h-auto min-h-20 py-1",
          isUnionSelector && "font-mono text-[13px]",
        )}
      >
        {showEmpty && <option value="">{placeholder || (isUnionSelector ? "choose…" : "—")}</option>}
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
    </div>
  );
}
