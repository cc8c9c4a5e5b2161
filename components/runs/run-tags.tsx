"use client";
// A run's tags (`quality`: played by the quality checks) as small badges, and the runs list's
// filters (by status, by tag) as one labelled select (docs/runs.md "In the UI").
import { inputClasses, Label } from "@/components/ui/input";
import { cn } from "@/lib/ui/cn";

/** The tags the runs list filters by. */
export const RUN_TAGS = ["quality"] as const;

export function RunTags({ tags }: { tags: readonly string[] }) {
  if (!tags.length) return null;
  return (
    <>
      {tags.map((t) => (
        <span
          key={t}
          className="ml-1.5 rounded border border-zinc-300 px-1 text-[10px] text-zinc-600 dark:border-zinc-700 dark:text-zinc-300"
        >
          {t}
        </span>
      ))}
    </>
  );
}

/** A labelled select of the runs list's filters (status, tag): `any` first, then the options. */
export function ListFilter<T extends string>({
  id,
  label,
  value,
  options,
  onChange,
  width = "w-32",
}: {
  id: string;
  label: string;
  value: T | undefined;
  options: readonly { value: T; label: string }[];
  onChange: (value: string) => void;
  width?: string;
}) {
  return (
    <div className="flex flex-col gap-1">
      <Label htmlFor={id}>{label}</Label>
      <select
        id={id}
        className={cn(inputClasses, width)}
        value={value ?? ""}
        onChange={(e) => onChange(e.target.value)}
      >
        <option value="">any</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}
