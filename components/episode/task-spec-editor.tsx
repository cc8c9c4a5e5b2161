"use client";
// A hand-written task_spec: a JSON editor validated as you type (must be a JSON object; errors
// give line and column).
import { useId } from "react";
import { parseJsonObject } from "@/components/schema-form/json-text";
import { cn } from "@/lib/ui/cn";

export function TaskSpecEditor({
  text,
  onChange,
  name,
}: {
  text: string;
  onChange: (text: string) => void;
  /** The field's name in its form. */
  name?: string;
}) {
  const id = useId();
  const parsed = parseJsonObject(text);
  return (
    <div className="flex flex-col gap-1.5">
      <label htmlFor={id} className="text-sm font-semibold">
        task_spec (JSON)
      </label>
      <textarea
        id={id}
        name={name}
        value={text}
        onChange={(e) => onChange(e.target.value)}
        spellCheck={false}
        rows={Math.min(20, Math.max(8, text.split("\n").length + 1))}
        aria-invalid={!parsed.ok || undefined}
        aria-describedby={`${id}-status`}
        className={cn(
          "w-full rounded-md border bg-white p-2 font-mono text-[13px] leading-5 text-zinc-900 shadow-xs dark:bg-zinc-900 dark:text-zinc-100",
          parsed.ok ? "border-zinc-300 dark:border-zinc-700" : "border-red-500",
        )}
      />
      <p
        id={`${id}-status`}
        aria-live="polite"
        className={cn(
          "text-xs",
          parsed.ok ? "text-emerald-700 dark:text-emerald-400" : "text-red-600 dark:text-red-400",
        )}
      >
        {parsed.ok ? `Valid JSON object with ${Object.keys(parsed.value).length} key(s).` : parsed.message}
      </p>
    </div>
  );
}
