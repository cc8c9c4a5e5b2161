"use client";
// Renders ORS content blocks (prompt and tool output). Environment output is untrusted: text is
// Markdown without raw HTML (dropped, never injected), links open safely, and images render only
// as data: URLs of raster types (png, jpeg, gif, webp) — never SVG, never a remote URL.
import { type ComponentProps, memo, useState } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";
import type { Block } from "@/lib/ors/protocol";

export const RASTER_MIME_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;
/** Text longer than this is shown as plain, collapsed text (Markdown of 100 KB is slow and unreadable). */
const LARGE_TEXT = 20_000;

/**
 * The `data:` URL of an image block, or null when it is not a raster image we render: the mime
 * type must be png/jpeg/gif/webp and the data plain base64 (or a data: URL of the same types).
 */
export function safeImageSrc(data: string, mimeType: string): string | null {
  let mime = mimeType.trim().toLowerCase();
  let payload = data;
  if (data.startsWith("data:")) {
    const m = /^data:([a-z0-9.+/-]+);base64,(.*)$/is.exec(data);
    if (!m) return null;
    mime = m[1]!.toLowerCase();
    payload = m[2]!;
  }
  if (mime === "image/jpg") mime = "image/jpeg";
  if (!(RASTER_MIME_TYPES as readonly string[]).includes(mime)) return null;
  if (payload.length === 0 || !BASE64.test(payload)) return null;
  return `data:${mime};base64,${payload.replace(/\s+/g, "")}`;
}

function MarkdownImage({ src, alt }: ComponentProps<"img">) {
  const safe = typeof src === "string" && src.startsWith("data:") ? safeImageSrc(src, "") : null;
  if (!safe) {
    // Remote or non-raster images are not loaded (no tracking, no SVG): show what they were.
    return (
      <span className="rounded bg-zinc-100 px-1 font-mono text-xs text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300">
        [image not loaded{alt ? `: ${alt}` : ""}]
      </span>
    );
  }
  return (
    // biome-ignore lint/performance/noImgElement: a data: URL, next/image adds nothing here.
    <img
      src={safe}
      alt={alt ?? ""}
      className="my-2 max-h-96 max-w-full rounded border border-zinc-200 dark:border-zinc-700"
    />
  );
}

const markdownComponents: Components = {
  img: MarkdownImage,
  a: ({ href, children }) => (
    <a
      href={href}
      target="_blank"
      rel="noopener noreferrer nofollow"
      className="text-sky-700 underline underline-offset-2 dark:text-sky-400"
    >
      {children}
    </a>
  ),
  pre: ({ children }) => (
    <pre className="my-2 overflow-x-auto rounded-md bg-zinc-100 p-3 font-mono text-[13px] leading-snug dark:bg-zinc-900">
      {children}
    </pre>
  ),
  code: ({ className, children }) => (
    <code
      className={`${className ?? ""} rounded bg-zinc-100 px-1 py-0.5 font-mono text-[0.9em] dark:bg-zinc-800`}
    >
      {children}
    </code>
  ),
  table: ({ children }) => (
    <div className="my-2 overflow-x-auto">
      <table className="border-collapse text-sm [&_td]:border [&_td]:border-zinc-300 [&_td]:px-2 [&_td]:py-1 [&_th]:border [&_th]:border-zinc-300 [&_th]:px-2 [&_th]:py-1 dark:[&_td]:border-zinc-700 dark:[&_th]:border-zinc-700">
        {children}
      </table>
    </div>
  ),
};

const MarkdownText = memo(function MarkdownText({ text }: { text: string }) {
  return (
    <div className="prose-ors break-words text-sm leading-relaxed [&_blockquote]:border-l-4 [&_blockquote]:border-zinc-300 [&_blockquote]:pl-3 [&_blockquote]:text-zinc-600 [&_h1]:mt-3 [&_h1]:text-lg [&_h1]:font-semibold [&_h2]:mt-3 [&_h2]:text-base [&_h2]:font-semibold [&_h3]:mt-2 [&_h3]:font-semibold [&_li]:my-0.5 [&_ol]:my-2 [&_ol]:list-decimal [&_ol]:pl-6 [&_p]:my-2 [&_pre_code]:bg-transparent [&_pre_code]:p-0 [&_ul]:my-2 [&_ul]:list-disc [&_ul]:pl-6 [&>*:first-child]:mt-0 [&>*:last-child]:mb-0">
      <ReactMarkdown remarkPlugins={[remarkGfm]} skipHtml components={markdownComponents}>
        {text}
      </ReactMarkdown>
    </div>
  );
});

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
