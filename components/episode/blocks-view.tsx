"use client";
// Renders ORS content blocks (prompt and tool output). Text reads as its author meant it: plain
// text with its line breaks, Markdown only when it is Markdown (text-kind.ts), a Markdown/Raw
// switch per block. Environment output is untrusted: Markdown without raw HTML (dropped, never
// injected), links open safely, and images render only as data: URLs of raster types (png, jpeg,
// gif, webp) — never SVG, never a remote URL. A long text (a log, a dump, a result stored at the
// step-size cap) is paged, with "Show all" (virtualized) and "Download" (long-text.tsx); images
// decode off the main thread.
import type { ReactNode } from "react";
import type { Block } from "@/lib/ors/protocol";
import { formatBytes, LONG_TEXT, LongText } from "./long-text";
import { safeImageSrc } from "./safe-image";
import { TextBlock, textFingerprint } from "./text-block";

export { RASTER_MIME_TYPES, safeImageSrc } from "./safe-image";
export { classifyText, isMarkdown, looksPreformatted } from "./text-kind";

export { formatBytes };

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
        decoding="async"
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
  /**
   * Markdown text blocks already rendered (on the server, components/episode/prerender.tsx), by
   * block index: shown at once instead of loading the Markdown renderer, so nothing re-lays out.
   */
  rendered?: readonly (ReactNode | null | undefined)[];
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
  rendered,
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
        if (block.text.length > LONG_TEXT) {
          const label = blocks.length === 1 ? "Text" : `Text of block ${i + 1}`;
          return (
            <div key={i} data-block-type="text">
              <LongText
                text={block.text}
                label={label}
                name={`${(id ?? "output").replace(/[^\w.-]+/g, "_")}-block-${i + 1}.txt`}
              />
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
              rendered={rendered?.[i] ?? undefined}
            />
          </div>
        );
      })}
    </div>
  );
}
