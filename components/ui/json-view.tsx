"use client";

// A collapsible, copyable JSON viewer: a tree (keyboard toggles via real buttons) or the raw text.
import { ChevronRight } from "lucide-react";
import { useMemo, useState } from "react";
import { cn } from "@/lib/ui/cn";
import { Button } from "./button";
import { CopyButton } from "./copy-button";

const MAX_CHILDREN = 200;

function Primitive({ value }: { value: unknown }) {
  if (value === null) return <span className="text-zinc-500">null</span>;
  switch (typeof value) {
    case "string":
      return (
        <span className="whitespace-pre-wrap break-all text-emerald-700 dark:text-emerald-400">
          {JSON.stringify(value)}
        </span>
      );
    case "number":
      return <span className="text-amber-700 dark:text-amber-400">{String(value)}</span>;
    case "boolean":
      return <span className="text-violet-700 dark:text-violet-400">{String(value)}</span>;
    default:
      return <span className="text-zinc-500">{String(value)}</span>;
  }
}

function summary(value: object): string {
  if (Array.isArray(value)) return `[${value.length} item${value.length === 1 ? "" : "s"}]`;
  const n = Object.keys(value).length;
  return `{${n} key${n === 1 ? "" : "s"}}`;
}

function Node({
  name,
  value,
  depth,
  expandDepth,
}: {
  name?: string;
  value: unknown;
  depth: number;
  expandDepth: number;
}) {
  const isContainer = value !== null && typeof value === "object";
  const [open, setOpen] = useState(depth < expandDepth);
  const [limit, setLimit] = useState(MAX_CHILDREN);
  const keyLabel =
    name !== undefined ? (
      <span className="text-sky-800 dark:text-sky-300">
        {name}
        <span className="text-zinc-400">: </span>
      </span>
    ) : null;
  if (!isContainer) {
    return (
      <div className="pl-4">
        {keyLabel}
        <Primitive value={value} />
      </div>
    );
  }
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [String(i), v])
    : Object.entries(value as Record<string, unknown>);
  const empty = entries.length === 0;
  return (
    <div>
      <button
        type="button"
        aria-expanded={empty ? undefined : open}
        disabled={empty}
        onClick={() => setOpen((o) => !o)}
        className="group inline-flex max-w-full items-start rounded text-left hover:bg-zinc-100 disabled:cursor-default disabled:hover:bg-transparent dark:hover:bg-zinc-800/60"
      >
        <ChevronRight
          aria-hidden="true"
          className={cn(
            "mt-0.5 size-4 shrink-0 text-zinc-400 transition-transform",
            open && "rotate-90",
            empty && "invisible",
          )}
        />
        <span>
          {keyLabel}
          <span className="text-zinc-500">
            {empty ? (Array.isArray(value) ? "[]" : "{}") : summary(value as object)}
          </span>
        </span>
      </button>
      {open && !empty && (
        <div className="ml-[7px] border-l border-zinc-200 pl-1 dark:border-zinc-800">
          {entries.slice(0, limit).map(([k, v]) => (
            <Node key={k} name={k} value={v} depth={depth + 1} expandDepth={expandDepth} />
          ))}
          {entries.length > limit && (
            <button
              type="button"
              onClick={() => setLimit((l) => l + MAX_CHILDREN)}
              className="ml-4 text-indigo-600 hover:underline dark:text-indigo-400"
            >
              Show {Math.min(MAX_CHILDREN, entries.length - limit)} more of {entries.length - limit}
            </button>
          )}
        </div>
      )}
    </div>
  );
}

export function JsonView({
  value,
  label = "JSON",
  expandDepth = 2,
  className,
  maxHeight = "32rem",
}: {
  value: unknown;
  label?: string;
  expandDepth?: number;
  className?: string;
  maxHeight?: string;
}) {
  const [mode, setMode] = useState<"tree" | "raw">("tree");
  const [depth, setDepth] = useState({ d: expandDepth, n: 0 });
  const text = useMemo(() => JSON.stringify(value, null, 2) ?? "undefined", [value]);
  return (
    <section
      aria-label={label}
      className={cn(
        "rounded-md border border-zinc-200 bg-zinc-50/60 dark:border-zinc-800 dark:bg-zinc-950",
        className,
      )}
    >
      <div className="flex items-center gap-1 border-b border-zinc-200 px-2 py-1 dark:border-zinc-800">
        <span className="mr-auto text-[11px] font-medium uppercase tracking-wide text-zinc-500">{label}</span>
        {mode === "tree" && (
          <>
            <Button size="xs" variant="ghost" onClick={() => setDepth((s) => ({ d: 99, n: s.n + 1 }))}>
              Expand all
            </Button>
            <Button size="xs" variant="ghost" onClick={() => setDepth((s) => ({ d: 1, n: s.n + 1 }))}>
              Collapse
            </Button>
          </>
        )}
        <Button
          size="xs"
          variant="ghost"
          aria-pressed={mode === "raw"}
          onClick={() => setMode((m) => (m === "tree" ? "raw" : "tree"))}
        >
          {mode === "tree" ? "Raw" : "Tree"}
        </Button>
        <CopyButton text={text} label={`Copy ${label}`} />
      </div>
      <div
        // biome-ignore lint/a11y/noNoninteractiveTabindex: scrollable region must be keyboard reachable
        tabIndex={0}
        className="overflow-auto p-2 font-mono text-xs leading-5"
        style={{ maxHeight }}
      >
        {mode === "raw" ? (
          <pre className="whitespace-pre-wrap break-all text-zinc-800 dark:text-zinc-200">{text}</pre>
        ) : (
          <Node key={depth.n} value={value} depth={0} expandDepth={depth.d} />
        )}
      </div>
    </section>
  );
}
