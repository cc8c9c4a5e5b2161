"use client";

// The check page's environment quality options: a checkbox that adds the quality checks to the run,
// and their split, sample size, seed and oracle module, each checked before anything runs.
import { type InputHTMLAttributes, type ReactNode, useId } from "react";
import { FieldError, FieldHint, Input, Label } from "@/components/ui/input";
import {
  DEFAULT_QUALITY_SEED,
  DEFAULT_QUALITY_TASKS,
  MAX_QUALITY_TASKS,
} from "@/lib/conformance/quality/types";

export interface QualityOptionsText {
  on: boolean;
  split: string;
  tasks: string;
  seed: string;
  oracle: string;
}

export const NO_QUALITY: QualityOptionsText = { on: false, split: "", tasks: "", seed: "", oracle: "" };

export type QualityErrors = Partial<Record<"split" | "tasks" | "seed" | "oracle", string>>;

export type QualityRequest = { split?: string; tasks?: number; seed?: number; oracle?: string };

/** The request's `quality` (undefined when off), or the errors by field. */
export function parseQualityOptions(
  o: QualityOptionsText,
): { ok: true; quality: QualityRequest | undefined } | { ok: false; errors: QualityErrors } {
  if (!o.on) return { ok: true, quality: undefined };
  const errors: QualityErrors = {};
  const quality: QualityRequest = {};
  if (o.split.trim()) quality.split = o.split.trim();
  if (o.tasks.trim()) {
    const n = Number(o.tasks.trim());
    if (Number.isInteger(n) && n >= 1 && n <= MAX_QUALITY_TASKS) quality.tasks = n;
    else errors.tasks = `A whole number from 1 to ${MAX_QUALITY_TASKS}`;
  }
  if (o.seed.trim()) {
    const n = Number(o.seed.trim());
    if (Number.isInteger(n) && Math.abs(n) < 2 ** 31) quality.seed = n;
    else errors.seed = "A whole number";
  }
  if (o.oracle.trim()) quality.oracle = o.oracle.trim();
  return Object.keys(errors).length ? { ok: false, errors } : { ok: true, quality };
}

/** A labelled field of the check page, its hint and error under it (ids derived from `id`). */
export function Field({
  id,
  label,
  hint,
  error,
  children,
}: {
  id: string;
  label: string;
  hint: string;
  error?: string;
  children: ReactNode;
}) {
  return (
    <div className="flex flex-col gap-1">
      <Label htmlFor={id}>{label}</Label>
      {children}
      <FieldHint id={`${id}-hint`}>{hint}</FieldHint>
      <FieldError id={`${id}-error`}>{error}</FieldError>
    </div>
  );
}

/** A text option of the page: the key of its text, its label and hint, and what its input takes besides. */
export interface OptionSpec<K extends string> {
  key: K;
  label: string;
  hint: string;
  input: InputHTMLAttributes<HTMLInputElement>;
}

const QUALITY_FIELDS: OptionSpec<keyof QualityErrors>[] = [
  { key: "split", label: "Split", hint: "Default: the first.", input: { placeholder: "first" } },
  {
    key: "tasks",
    label: "Tasks to sample",
    hint: `Default ${DEFAULT_QUALITY_TASKS}, at most ${MAX_QUALITY_TASKS}.`,
    input: { inputMode: "numeric", placeholder: String(DEFAULT_QUALITY_TASKS) },
  },
  {
    key: "seed",
    label: "Seed",
    hint: "Of the sample and the inputs.",
    input: { inputMode: "numeric", placeholder: String(DEFAULT_QUALITY_SEED) },
  },
  {
    key: "oracle",
    label: "Oracle module",
    hint: "A script policy that solves each task (a path on the app's machine).",
    input: { placeholder: "./oracle.ts", spellCheck: false },
  },
];

/** The props of a check page option's input `id`: value, change handler, and the ARIA naming its hint and error. */
export function optionProps(
  id: string,
  value: string,
  onValue: (value: string) => void,
  error: string | undefined,
  disabled: boolean,
) {
  return {
    id,
    value,
    onChange: (e: { target: { value: string } }) => onValue(e.target.value),
    disabled,
    autoComplete: "off",
    "aria-invalid": error ? true : undefined,
    "aria-describedby": `${id}-hint${error ? ` ${id}-error` : ""}`,
  };
}

/** A text option of the check page: its Field around an Input with `input`'s props (optionProps). */
export function TextOption({
  label,
  hint,
  error,
  ...input
}: { id: string; label: string; hint: string; error?: string } & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <Field id={input.id} label={label} hint={hint} error={error}>
      <Input {...input} />
    </Field>
  );
}

export function QualityOptions({
  value,
  onChange,
  errors,
  disabled,
}: {
  value: QualityOptionsText;
  onChange: (next: QualityOptionsText) => void;
  errors: QualityErrors;
  disabled: boolean;
}) {
  const id = useId();
  const field = (key: keyof QualityErrors) => ({
    ...optionProps(
      `${id}-${key}`,
      value[key],
      (v) => onChange({ ...value, [key]: v }),
      errors[key],
      disabled,
    ),
    error: errors[key],
  });
  return (
    <fieldset className="space-y-2 rounded-md border border-zinc-200 p-3 dark:border-zinc-800">
      <legend className="sr-only">Environment quality</legend>
      <div className="flex items-start gap-2">
        <input
          id={`${id}-on`}
          type="checkbox"
          checked={value.on}
          disabled={disabled}
          onChange={(e) => onChange({ ...value, on: e.target.checked })}
          aria-describedby={`${id}-on-hint`}
          className="mt-0.5 size-4 accent-indigo-600"
        />
        <div>
          <Label htmlFor={`${id}-on`} className="text-sm">
            Also check the environment's quality
          </Label>
          <FieldHint id={`${id}-on-hint`}>
            Plays a seeded sample of tasks with random valid inputs (and your oracle), replays each episode,
            and finds answer leaks, nondeterminism, trivial or missing rewards and crashing tools. The
            episodes are recorded like a run's. Environment: as set above, else the first with tasks.
          </FieldHint>
        </div>
      </div>
      {value.on && (
        <div className="grid gap-3 sm:grid-cols-4">
          {QUALITY_FIELDS.map((f) => (
            <TextOption key={f.key} {...field(f.key)} label={f.label} hint={f.hint} {...f.input} />
          ))}
        </div>
      )}
    </fieldset>
  );
}
