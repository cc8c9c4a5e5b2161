// Markdown of untrusted text blocks as React elements, with no client code of its own: the client's
// MarkdownText (markdown-text.tsx, loaded on demand) and server pages that render a prompt before
// it reaches the browser (prerender.tsx) both use it. No raw HTML (dropped), links open safely,
// images only as raster data: URLs (a remote image is never fetched). Line breaks inside a
// paragraph are kept: environment authors write one fact per line and mean it.
import type { ComponentProps } from "react";
import ReactMarkdown, { type Components, defaultUrlTransform, type UrlTransform } from "react-markdown";
import remarkGfm from "remark-gfm";
import { safeImageSrc } from "./safe-image";

/** The part of an mdast node this file reads (mdast's own types are not a dependency of ours). */
interface MdastNode {
  type: string;
  value?: string;
  children?: MdastNode[];
}

function splitSoftBreaks(node: MdastNode): void {
  if (!node.children) return;
  const children: MdastNode[] = [];
  for (const child of node.children) {
    if (child.type === "text" && child.value?.includes("\n")) {
      child.value.split("\n").forEach((part, i) => {
        if (i > 0) children.push({ type: "break" });
        if (part) children.push({ type: "text", value: part });
      });
    } else {
      splitSoftBreaks(child);
      children.push(child);
    }
  }
  node.children = children;
}

/**
 * A remark plugin: every line break inside a paragraph is a hard break (`<br>`), as in GitHub
 * comments, instead of CommonMark's soft break that joins the lines with a space. Code keeps its
 * own line breaks (its nodes are `code`/`inlineCode`, not `text`).
 */
export function remarkKeepLineBreaks() {
  return (tree: MdastNode) => splitSoftBreaks(tree);
}

const remarkPlugins = [remarkGfm, remarkKeepLineBreaks];

/**
 * Links and images keep only safe URLs (react-markdown's default: http(s), mailto, relative),
 * and an image may also be a raster data: URL, the one way environments send pictures inline.
 */
const urlTransform: UrlTransform = (url, key, node) =>
  key === "src" && node.tagName === "img" && url.startsWith("data:")
    ? (safeImageSrc(url, "") ?? "")
    : defaultUrlTransform(url);

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

/** The Markdown of one text block, styled as the app shows it. */
export function MarkdownBody({ text }: { text: string }) {
  return (
    <div className="prose-ors break-words text-sm leading-relaxed [&_blockquote]:border-l-4 [&_blockquote]:border-zinc-300 [&_blockquote]:pl-3 [&_blockquote]:text-zinc-600 [&_h1]:mt-3 [&_h1]:text-lg [&_h1]:font-semibold [&_h2]:mt-3 [&_h2]:text-base [&_h2]:font-semibold [&_h3]:mt-2 [&_h3]:font-semibold [&_li]:my-0.5 [&_ol]:my-2 [&_ol]:list-decimal [&_ol]:pl-6 [&_p]:my-2 [&_pre_code]:bg-transparent [&_pre_code]:p-0 [&_ul]:my-2 [&_ul]:list-disc [&_ul]:pl-6 [&>*:first-child]:mt-0 [&>*:last-child]:mb-0">
      <ReactMarkdown
        remarkPlugins={remarkPlugins}
        urlTransform={urlTransform}
        skipHtml
        components={markdownComponents}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}
