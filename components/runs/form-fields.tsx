"use client";
// The runs pages' controls: a labelled field whose control gets its ids, a text field bound to one of
// the run form's values, a radio group laid out as segmented buttons, and the small "Show" select
// that filters a table's rows.
import { type ReactNode, useId } from "react";
import { FieldError, FieldHint, Input, inputClasses, Label } from "@/components/ui/input";
import { cn } from "@/lib/ui/cn";
import type { RunFormErrors, RunFormValues } from "@/lib/ui/run-form";

type FieldProps = { id: string; "aria-invalid": boolean; "aria-describedby"?: string };

/** A text field of the run form bound to one of its values: its label, hint, what it shows blank, its input mode. */
export interface TextSpec {
  label: string;
  name: keyof RunFormValues;
  hint?: string;
  mode?: "numeric" | "decimal" | "text";
  placeholder?: string;
  className?: string;
}

/** A text field of the form (its value as typed; the form checks it, its error by its name); numeric unless said. */
export function TextField({
  label,
  name,
  hint,
  mode = "numeric",
  placeholder,
  className,
  form,
}: TextSpec & { form: RunFormParts }) {
  return (
    <Field label={label} error={form.errors[name]} hint={hint}>
      {(p) => (
        <Input
          {...p}
          inputMode={mode === "text" ? undefined : mode}
          placeholder={placeholder}
          className={className}
          value={form.v[name]}
          onChange={(e) => form.set({ [name]: e.target.value })}
        />
      )}
    </Field>
  );
}

/** What each part of the run form is given: its values, their setter, the errors of an attempt to start. */
export interface RunFormParts {
  v: RunFormValues;
  set: (patch: Partial<RunFormValues>) => void;
  errors: RunFormErrors;
}

/** A labelled control with its hint and error (the control comes from `children`, given the ids). */
export function Field({
  label,
  error,
  hint,
  children,
}: {
  label: string;
  error?: string;
  hint?: string;
  children: (p: FieldProps) => ReactNode;
}) {
  const id = useId();
  const described = [error ? `${id}-error` : "", hint ? `${id}-hint` : ""].filter(Boolean).join(" ");
  return (
    <div className="min-w-0 space-y-1">
      {/* A line of its own, above a narrow field as above a wide one. */}
      <Label htmlFor={id} className="block">
        {label}
      </Label>
      {children({ id, "aria-invalid": !!error, "aria-describedby": described || undefined })}
      {hint && !error && <FieldHint id={`${id}-hint`}>{hint}</FieldHint>}
      <FieldError id={`${id}-error`}>{error}</FieldError>
    </div>
  );
}

/** A radio group (fieldset + legend) of a few choices, laid out as segmented buttons. */
export function Choice({
  legend,
  name,
  value,
  onChange,
  options,
}: {
  legend: string;
  name: string;
  value: string;
  onChange: (v: string) => void;
  options: { value: string; label: string }[];
}) {
  return (
    <fieldset>
      <legend className="mb-1 text-xs font-medium text-zinc-700 dark:text-zinc-300">{legend}</legend>
      <div className="flex flex-wrap gap-1.5">
        {options.map((o) => (
          <label
            key={o.value}
            className={cn(
              "relative inline-flex cursor-pointer items-center rounded-md border px-2.5 py-1 text-xs has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-indigo-500",
              value === o.value
                ? "border-indigo-400 bg-indigo-50 text-indigo-900 dark:border-indigo-600 dark:bg-indigo-950 dark:text-indigo-100"
                : "border-zinc-300 text-zinc-700 hover:bg-zinc-50 dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800",
            )}
          >
            <input
              type="radio"
              name={name}
              value={o.value}
              checked={value === o.value}
              onChange={() => onChange(o.value)}
              className="absolute inset-0 cursor-pointer appearance-none rounded-md opacity-0"
            />
            {o.label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/** A table's "Show" filter: a labelled select of a few row filters. */
export function ShowSelect<T extends string>({
  id,
  value,
  onChange,
  labels,
}: {
  id: string;
  value: T;
  onChange: (v: T) => void;
  /** Each choice's words, in the order offered. */
  labels: Record<T, string>;
}) {
  return (
    <>
      <Label htmlFor={id}>Show</Label>
      <select
        id={id}
        className={cn(inputClasses, "h-7 w-36 text-xs")}
        value={value}
        onChange={(e) => onChange(e.target.value as T)}
      >
        {(Object.entries(labels) as [T, string][]).map(([v, label]) => (
          <option key={v} value={v}>
            {label}
          </option>
        ))}
      </select>
    </>
  );
}
