"use client";
// Renders ORS content blocks (prompt and tool output). Environment output is untrusted: text is
// Markdown without raw HTML (dropped, never injected), links open safely, and images render only
// as data: URLs of raster types (png, jpeg, gif, webp) — never SVG, never a remote URL.
import { lazy, Suspense, useState } from "react";
import type { Block } from "@/lib/ors/protocol";
import { safeImageSrc } from "./safe-image";

export { RASTER_MIME_TYPES, safeImageSrc } from "./safe-image";

/** Text longer than this is shown as plain, collapsed text (Markdown of 100 KB is slow and unreadable). */
const LARGE_TEXT = 20_000;

/** Resolves when the main thread is idle (at most 1 s later). */
function whenIdle(): Promise<void> {
  return new Promise((resolve) => {
    if (typeof requestIdleCallback === "function") requestIdleCallback(() => resolve(), { timeout: 1000 });
    else setTimeout(resolve, 50);
  });
}

// The Markdown renderer (react-markdown + micromark, ~45 kB gzipped) loads on first use, once the
// page is idle (so it never competes with the tool form); until then the text shows as it is.
const LazyMarkdown = lazy(() =>
  whenIdle()
    .then(() => import("./markdown-text"))
    .then((m) => ({ default: m.MarkdownText })),
);

function MarkdownText({ text }: { text: string }) {
  return (
    <Suspense fallback={<p className="whitespace-pre-wrap break-words text-sm leading-relaxed">{text}</p>}>
      <LazyMarkdown text={text} />
    </Suspense>
  );
}

function LargeText({ text }: { text: string }) {
  const [expanded, setExpanded] = useState(false);
  const shown = expanded ? text : text.slice(0, LARGE_TEXT);
  return (
    <div>
      <pre className="max-h-[32rem] overflow-auto whitespace-pre-wrap break-words rounded-md bg-zinc-50 p-3 font-mono text-[13px] leading-snug dark:bg-zinc-900">
        {shown}
      </pre>
      <div className="mt-1 flex items-center gap-3 text-xs text-zinc-500 dark:text-zinc-400">
        <span>{formatBytes(new TextEncoder().encode(text).length)} of text, shown as plain text</span>
        <button
          type="button"
          onClick={() => setExpanded((v) => !v)}
          className="rounded px-1 font-medium text-sky-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-sky-500 dark:text-sky-400"
        >
          {expanded ? "Collapse" : `Show all ${text.length.toLocaleString()} characters`}
        </button>
      </div>
    </div>
  );
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(2)} MB`;
}

function ImageBlockView({ data, mimeType, index }: { data: string; mimeType: string; index: number }) {
  const src = safeImageSrc(data, mimeType);
  if (!src) {
    return (
      <p className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-200">
        Image not shown: <span className="font-mono">{mimeType || "unknown type"}</span> is not a raster image
        (png, jpeg, gif, webp) in base64.
      </p>
    );
  }
  return (
    <figure className="inline-block">
      {/* biome-ignore lint/performance/noImgElement: a data: URL, next/image adds nothing here. */}
      <img
        src={src}
        alt={`Block ${index + 1}: ${mimeType.replace("image/", "")} observation`}
        className="max-h-[28rem] max-w-full rounded-md border border-zinc-200 bg-[conic-gradient(#eee_25%,#fff_0_50%,#eee_0_75%,#fff_0)] bg-[length:16px_16px] [image-rendering:pixelated] dark:border-zinc-700"
      />
      <figcaption className="mt-1 font-mono text-xs text-zinc-500 dark:text-zinc-400">
        {mimeType} · {formatBytes(Math.floor((data.length * 3) / 4))}
      </figcaption>
    </figure>
  );
}

export type TextMode = "auto" | "markdown" | "plain";

/**
 * Whether a text reads better as plain preformatted text than as Markdown: indented lines or
 * JSON-like lines (Markdown would fold them into one paragraph), and no Markdown fences/headings.
 */
export function looksPreformatted(text: string): boolean {
  if (/^```|^#{1,6}\s/m.test(text)) return false;
  return /\n[ \t]{2,}\S/.test(text) || /\n[{}[\]]/.test(text);
}

function TextBlockView({ text, mode }: { text: string; mode: TextMode }) {
  const [override, setOverride] = useState<"markdown" | "plain" | null>(null);
  const effective = override ?? (mode === "auto" ? (looksPreformatted(text) ? "plain" : "markdown") : mode);
  return (
    <div className="group/text relative">
      {effective === "plain" ? (
        <pre className="overflow-x-auto whitespace-pre-wrap break-words font-mono text-[13px] leading-snug text-zinc-800 dark:text-zinc-200">
          {text}
        </pre>
      ) : (
        <MarkdownText text={text} />
      )}
      {text.includes("\n") && (
        <button
          type="button"
          onClick={() => setOverride(effective === "plain" ? "markdown" : "plain")}
          className="absolute top-0 right-0 rounded bg-white/90 px-1.5 py-0.5 text-[11px] text-zinc-500 opacity-0 ring-1 ring-zinc-200 transition-opacity group-hover/text:opacity-100 focus-visible:opacity-100 dark:bg-zinc-900/90 dark:text-zinc-400 dark:ring-zinc-700"
        >
          {effective === "plain" ? "Show as Markdown" : "Show as plain text"}
        </button>
      )}
    </div>
  );
}

export interface BlocksViewProps {
  /** The blocks to show (a prompt or a tool output). */
  blocks: readonly Block[];
  /** How text blocks render: Markdown, plain, or `auto` (plain when the text looks preformatted). Default auto. */
  textMode?: TextMode;
  /** Shown when `blocks` is empty. */
  emptyText?: string;
  className?: string;
}

/**
 * Shows ORS blocks in order: text as safe Markdown (plain when it looks preformatted or is very
 * large; a hover toggle switches), images as data: URLs of raster types.
 */
export function BlocksView({
  blocks,
  emptyText = "No blocks.",
  className,
  textMode = "auto",
}: BlocksViewProps) {
  if (blocks.length === 0) {
    return (
      <p className={`text-sm italic text-zinc-500 dark:text-zinc-400 ${className ?? ""}`}>{emptyText}</p>
    );
  }
  return (
    <div className={`flex flex-col gap-3 ${className ?? ""}`}>
      {blocks.map((block, i) => (
        <div key={i} data-block-type={block.type}>
          {block.type === "text" ? (
            block.text.length > LARGE_TEXT ? (
              <LargeText text={block.text} />
            ) : (
              <TextBlockView text={block.text} mode={textMode} />
            )
          ) : (
            <ImageBlockView data={block.data} mimeType={block.mimeType} index={i} />
          )}
        </div>
      ))}
    </div>
  );
}
