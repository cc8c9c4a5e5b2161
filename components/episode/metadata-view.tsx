"use client";
// The `metadata` object of a tool output: a collapsible "Metadata" section, a compact key/value
// list when the values are flat, the JSON tree otherwise. Nothing at all when null or empty.
import { JsonView } from "@/components/ui/json-view";
import { cn } from "@/lib/ui/cn";

/** Flat metadata with at most this many keys reads as a key/value list. */
const MAX_LIST_KEYS = 12;

function FlatValue({ value }: { value: unknown }) {
  if (value === null) return <span className="text-zinc-500">null</span>;
  if (typeof value === "string") {
    return <span className="whitespace-pre-wrap break-words text-zinc-800 dark:text-zinc-200">{value}</span>;
  }
  const tone =
    typeof value === "number" ? "text-amber-700 dark:text-amber-400" : "text-violet-700 dark:text-violet-400";
  return <span className={tone}>{String(value)}</span>;
}

function isEmpty(value: unknown): boolean {
  return (
    value === null || value === undefined || (typeof value === "object" && Object.keys(value).length === 0)
  );
}

export interface MetadataViewProps {
  /** A tool output's `metadata` (a JSON object, or null when the tool sent none). */
  value: Record<string, unknown> | null | undefined;
  /** Open when first shown (default true). */
  defaultOpen?: boolean;
  className?: string;
}

/**
 * Shows a tool output's metadata as a region named "Metadata" whose summary collapses it; flat
 * values (strings, numbers, booleans, null) as a key/value list, nested ones as a JSON tree.
 */
export function MetadataView({ value, defaultOpen = true, className }: MetadataViewProps) {
  if (isEmpty(value) || typeof value !== "object" || value === null) return null;
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  const flat =
    entries.length <= MAX_LIST_KEYS && entries.every(([, v]) => v === null || typeof v !== "object");
  return (
    <section aria-label="Metadata" className={cn("text-xs", className)}>
      <details open={defaultOpen} className="group">
        <summary className="cursor-pointer select-none rounded font-semibold uppercase tracking-wide text-zinc-500 hover:text-zinc-800 focus-visible:outline-2 focus-visible:outline-sky-500 dark:text-zinc-400 dark:hover:text-zinc-200">
          Metadata{" "}
          <span className="font-normal normal-case tracking-normal">
            · {entries.length} {entries.length === 1 ? "key" : "keys"}
          </span>
        </summary>
        <div className="mt-1">
          {flat ? (
            <dl className="grid grid-cols-[minmax(0,max-content)_minmax(0,1fr)] gap-x-3 gap-y-0.5 rounded-md border border-zinc-200 bg-zinc-50/60 px-2 py-1.5 font-mono dark:border-zinc-800 dark:bg-zinc-950">
              {entries.map(([k, v]) => (
                <div key={k} className="contents">
                  <dt className="break-all text-sky-800 dark:text-sky-300">{k}</dt>
                  <dd className="min-w-0">
                    <FlatValue value={v} />
                  </dd>
                </div>
              ))}
            </dl>
          ) : (
            <JsonView value={value} label="Metadata JSON" expandDepth={1} maxHeight="16rem" />
          )}
        </div>
      </details>
    </section>
  );
}
