"use client";
// A run's tags (`quality`: played by the quality checks) as small badges, and the runs list's
// filter by tag (docs/runs.md "In the UI").
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

export function RunTagFilter({
  tag,
  onChange,
}: {
  tag: string | undefined;
  onChange: (tag: string) => void;
}) {
  return (
    <div className="flex flex-col gap-1">
      <Label htmlFor="runs-tag">Tag</Label>
      <select
        id="runs-tag"
        className={cn(inputClasses, "w-32")}
        value={tag ?? ""}
        onChange={(e) => onChange(e.target.value)}
      >
        <option value="">any</option>
        {RUN_TAGS.map((t) => (
          <option key={t} value={t}>
            {t}
          </option>
        ))}
      </select>
    </div>
  );
}
