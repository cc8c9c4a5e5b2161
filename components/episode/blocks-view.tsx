"use client";
// Renders ORS content blocks (prompt and tool output). Text reads as its author meant it: plain
// text with its line breaks, Markdown only when it is Markdown (text-kind.ts), a Markdown/Raw
// switch per block. Environment output is untrusted: Markdown without raw HTML (dropped, never
// injected), links open safely, and images render only as data: URLs of raster types (png, jpeg,
// gif, webp) — never SVG, never a remote URL.
import { useState } from "react";
import type { Block } from "@/lib/ors/protocol";
import { safeImageSrc } from "./safe-image";
import { TextBlock, textFingerprint } from "./text-block";

export { RASTER_MIME_TYPES, safeImageSrc } from "./safe-image";
export { classifyText, isMarkdown, looksPreformatted } from "./text-kind";

/** Text longer than this is shown as plain, collapsed text (Markdown of 100 KB is slow and unreadable). */
const LARGE_TEXT = 20_000;

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

/** How text blocks first show: detected per block (`auto`), or all as Markdown, or all as plain text. */
export type TextMode = "auto" | "markdown" | "plain";

export interface BlocksViewProps {
  /** The blocks to show (a prompt or a tool output). */
  blocks: readonly Block[];
  /** How text blocks first show: `auto` (Markdown only when the text is Markdown), `markdown` or `plain`. */
  textMode?: TextMode;
  /**
   * A stable id of this list of blocks (e.g. `<trajectory>:<step>`), so the Markdown/Raw choice
   * of each block is remembered per block while the page lives; without it, per block content.
   */
  id?: string;
  /** Shown when `blocks` is empty. */
  emptyText?: string;
  className?: string;
}

/**
 * Shows ORS blocks in order: text as plain text or safe Markdown (see text-kind.ts; very large
 * text always plain) with a Markdown/Raw switch per block, images as data: URLs of raster types.
 */
export function BlocksView({
  blocks,
  emptyText = "No blocks.",
  className,
  textMode = "auto",
  id,
}: BlocksViewProps) {
  if (blocks.length === 0) {
    return (
      <p className={`text-sm italic text-zinc-500 dark:text-zinc-400 ${className ?? ""}`}>{emptyText}</p>
    );
  }
  return (
    <div className={`flex flex-col gap-3 ${className ?? ""}`}>
      {blocks.map((block, i) => {
        if (block.type !== "text") {
          return (
            <div key={i} data-block-type={block.type}>
              <ImageBlockView data={block.data} mimeType={block.mimeType} index={i} />
            </div>
          );
        }
        if (block.text.length > LARGE_TEXT) {
          return (
            <div key={i} data-block-type="text">
              <LargeText text={block.text} />
            </div>
          );
        }
        // Keyed by content too: a block of other text (another step in the same view) starts from
        // its own remembered or detected view, never from the previous block's.
        const key = `${id ?? ""}#${i}#${textFingerprint(block.text)}`;
        return (
          <div key={key} data-block-type="text">
            <TextBlock
              text={block.text}
              memoryKey={key}
              label={blocks.length === 1 ? "Text view" : `Block ${i + 1} view`}
              initialView={textMode === "auto" ? undefined : textMode === "markdown" ? "markdown" : "raw"}
            />
          </div>
        );
      })}
    </div>
  );
}
