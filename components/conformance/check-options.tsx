"use client";
// The conformance check's options as typed (environment, task, tool, its input, the idle limit),
// read into the request the check is started with, and the fields that take them.
import { useId } from "react";
import { parseJsonObject } from "@/components/schema-form/json-text";
import { Input } from "@/components/ui/input";
import { useEnvironments } from "@/lib/ui/queries";
import { Field, type OptionSpec, optionProps, TextOption } from "./quality-options";
import type { CheckRequest } from "./use-conformance-check";

export interface OptionsText {
  env: string;
  task: string;
  tool: string;
  input: string;
  idle: string;
}

export type Parsed =
  | { ok: true; request: CheckRequest }
  | { ok: false; errors: Partial<Record<keyof OptionsText, string>> };

export function parseOptions(o: OptionsText): Parsed {
  const errors: Partial<Record<keyof OptionsText, string>> = {};
  const request: CheckRequest = {};
  if (o.env.trim()) request.env = o.env.trim();
  if (o.task.trim()) {
    if (/^.+:\d+$/.test(o.task.trim())) request.task = o.task.trim();
    else errors.task = "Write it as split:index, e.g. train:0";
  }
  if (o.tool.trim()) request.tool = o.tool.trim();
  if (o.input.trim()) {
    const parsed = parseJsonObject(o.input);
    if (!parsed.ok) errors.input = parsed.message;
    else if (!request.tool) errors.input = "Name the tool this input is for";
    else request.input = parsed.value;
  }
  if (o.idle.trim()) {
    const n = Number(o.idle.trim());
    if (Number.isInteger(n) && n > 0 && n <= 30 * 60_000) request.idleTimeoutMs = n;
    else errors.idle = "Milliseconds, more than 0 and at most 1,800,000 (30 minutes)";
  }
  return Object.keys(errors).length ? { ok: false, errors } : { ok: true, request };
}

export type OptionErrors = Partial<Record<keyof OptionsText, string>>;

export const NO_OPTIONS: OptionsText = { env: "", task: "", tool: "", input: "", idle: "" };

const CHECK_FIELDS: OptionSpec<keyof OptionsText>[] = [
  {
    key: "task",
    label: "Task",
    hint: "split:index. Default: task 0 of the first split.",
    input: { placeholder: "train:0" },
  },
  {
    key: "tool",
    label: "Tool",
    hint: "For the call checks. Default: chosen from the input schemas.",
    input: { placeholder: "automatic" },
  },
  {
    key: "idle",
    label: "Idle timeout (ms)",
    hint: "The server's idle limit: checks an idle session is gone after it. Empty: not checked.",
    input: { inputMode: "numeric", placeholder: "not checked" },
  },
];

export function CheckOptions({
  server,
  text,
  setText,
  errors,
  disabled,
}: {
  server: string;
  text: OptionsText;
  setText: (update: (t: OptionsText) => OptionsText) => void;
  errors: OptionErrors;
  disabled: boolean;
}) {
  const id = useId();
  const envs = useEnvironments(server);
  const fieldProps = (key: keyof OptionsText) =>
    optionProps(
      `${id}-${key}`,
      text[key],
      (v) => setText((t) => ({ ...t, [key]: v })),
      errors[key],
      disabled,
    );
  return (
    <details className="rounded-md border border-zinc-200 dark:border-zinc-800">
      <summary className="cursor-pointer px-3 py-1.5 text-sm font-medium text-zinc-800 dark:text-zinc-200">
        Options
      </summary>
      <div className="grid gap-3 p-3 sm:grid-cols-2">
        <Field id={`${id}-env`} label="Environment" hint="Default: the first with tasks." error={errors.env}>
          <Input {...fieldProps("env")} list={`${id}-envs`} placeholder="automatic" />
          <datalist id={`${id}-envs`}>
            {envs.data?.map((e) => (
              <option key={e} value={e} />
            ))}
          </datalist>
        </Field>
        {CHECK_FIELDS.map((f) => (
          <TextOption
            key={f.key}
            {...fieldProps(f.key)}
            label={f.label}
            hint={f.hint}
            error={errors[f.key]}
            {...f.input}
          />
        ))}
        <div className="sm:col-span-2">
          <Field
            id={`${id}-input`}
            label="Tool input (JSON)"
            hint="Default: made up from the tool's schema."
            error={errors.input}
          >
            <textarea
              {...fieldProps("input")}
              rows={3}
              spellCheck={false}
              placeholder='{"answer": "4"}'
              className="w-full rounded-md border border-zinc-300 bg-white p-2 font-mono text-[13px] text-zinc-900 shadow-xs aria-[invalid=true]:border-red-500 disabled:opacity-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
            />
          </Field>
        </div>
      </div>
    </details>
  );
}
