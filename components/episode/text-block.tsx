"use client";
// One text block of environment output, shown as its author meant it (see text-kind.ts): Markdown
// when it is Markdown, otherwise the text with its line breaks (monospace when preformatted). A
// "Markdown | Raw" switch per block, always visible and reachable by keyboard, overrides that;
// the choice is remembered per block while the page lives.
import { lazy, type ReactNode, Suspense, useId, useMemo, useState } from "react";
import { cn } from "@/lib/ui/cn";
import { whenIdle } from "@/lib/ui/when-idle";
import { classifyText, couldBeMarkdown } from "./text-kind";

export type TextView = "markdown" | "raw";

// The Markdown renderer (react-markdown + micromark, ~45 kB gzipped) loads on first use, once the
// page is idle (so it never competes with the tool form); until then the text shows as it is.
const LazyMarkdown = lazy(() =>
  whenIdle()
    .then(() => import("./markdown-text"))
    .then((m) => ({ default: m.MarkdownText })),
);

// Views the user picked, by block key, for the life of the page (not stored: a reload starts
// from what each text is). Bounded: the oldest choices go first.
const MAX_REMEMBERED = 500;
const remembered = new Map<string, TextView>();

function remember(key: string, view: TextView): void {
  remembered.delete(key);
  remembered.set(key, view);
  if (remembered.size > MAX_REMEMBERED) remembered.delete(remembered.keys().next().value!);
}

/** A short, stable fingerprint of a text (FNV-1a), so a remembered view never moves to other text. */
export function textFingerprint(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return `${text.length.toString(36)}.${(h >>> 0).toString(36)}`;
}

const MONO = "font-mono text-[13px] leading-snug";

function RawText({ text, monospace }: { text: string; monospace: boolean }) {
  return monospace ? (
    <pre
      className={cn(MONO, "overflow-x-auto whitespace-pre-wrap break-words text-zinc-800 dark:text-zinc-200")}
    >
      {text}
    </pre>
  ) : (
    <div className="whitespace-pre-wrap break-words text-sm leading-relaxed text-zinc-800 dark:text-zinc-200">
      {text}
    </div>
  );
}

function ViewSwitch({
  label,
  view,
  onChange,
}: {
  label: string;
  view: TextView;
  onChange: (view: TextView) => void;
}) {
  const name = useId();
  return (
    <div
      role="radiogroup"
      aria-label={label}
      className="inline-flex shrink-0 overflow-hidden rounded border border-zinc-200 text-[11px] leading-4 dark:border-zinc-700"
    >
      {(["markdown", "raw"] as const).map((v) => (
        <label
          key={v}
          className={cn(
            "cursor-pointer px-1.5 py-0.5 select-none has-[:focus-visible]:outline-2 has-[:focus-visible]:-outline-offset-2 has-[:focus-visible]:outline-sky-500",
            view === v
              ? "bg-zinc-200 font-medium text-zinc-900 dark:bg-zinc-700 dark:text-zinc-50"
              : "text-zinc-500 hover:bg-zinc-100 hover:text-zinc-800 dark:text-zinc-400 dark:hover:bg-zinc-800 dark:hover:text-zinc-200",
          )}
        >
          <input
            type="radio"
            name={name}
            value={v}
            checked={view === v}
            onChange={() => onChange(v)}
            className="sr-only"
          />
          {v === "markdown" ? "Markdown" : "Raw"}
        </label>
      ))}
    </div>
  );
}

export interface TextBlockProps {
  text: string;
  /** Identifies the block for the remembered view (BlocksView passes list id + index + fingerprint). */
  memoryKey: string;
  /** The accessible name of the view switch, e.g. "Block 2 view". */
  label: string;
  /** Force the initial view instead of detecting it. */
  initialView?: TextView;
  /** The Markdown already rendered (on the server): shown at once, no renderer to load. */
  rendered?: ReactNode;
}

/** A text block with its Markdown/Raw switch (the switch is left out where both would look alike). */
export function TextBlock({ text, memoryKey, label, initialView, rendered }: TextBlockProps) {
  const kind = useMemo(() => classifyText(text), [text]);
  const detected: TextView = initialView ?? (kind.markdown ? "markdown" : "raw");
  const [view, setView] = useState<TextView>(() => remembered.get(memoryKey) ?? detected);
  const choose = (v: TextView) => {
    remember(memoryKey, v);
    setView(v);
  };
  const switchable = couldBeMarkdown(text);
  const shown = switchable ? view : "raw";
  return (
    <div className="flex items-start gap-2" data-text-view={shown}>
      <div className="min-w-0 flex-1">
        {shown === "markdown" && rendered ? (
          rendered
        ) : shown === "markdown" ? (
          <Suspense fallback={<RawText text={text} monospace={false} />}>
            <LazyMarkdown text={text} />
          </Suspense>
        ) : (
          // Raw: the text as sent. Monospace when its columns line up, or when it is Markdown source.
          <RawText text={text} monospace={kind.preformatted || kind.markdown} />
        )}
      </div>
      {switchable && <ViewSwitch label={label} view={view} onChange={choose} />}
    </div>
  );
}
