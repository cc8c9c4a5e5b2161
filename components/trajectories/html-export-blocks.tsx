// Blocks of environment output as static HTML for the exported file (lib/episodes/html-export.ts),
// by the app's own rules: text as text, or as Markdown when it is Markdown (text-kind.ts), rendered
// by the app's renderer (markdown-render.tsx: raw HTML dropped, safe URLs, raster data: images
// only), then written out through an allow-list of elements and attributes — anything else is
// dropped with its content. Links show their address as text: the file references nothing.
import { Fragment, isValidElement, type ReactElement, type ReactNode } from "react";
import { LONG_TEXT } from "@/components/episode/long-text-limits";
import { MarkdownBody } from "@/components/episode/markdown-render";
import { safeImageSrc } from "@/components/episode/safe-image";
import { classifyText } from "@/components/episode/text-kind";
import type { Block } from "@/lib/ors/protocol";
import { escapeHtml } from "@/lib/trajectory/html-escape";

/** Elements kept (with their content); every other element is dropped, content and all. */
const KEPT = new Set([
  "blockquote",
  "br",
  "code",
  "del",
  "div",
  "em",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "hr",
  "img",
  "input",
  "li",
  "ol",
  "p",
  "pre",
  "section",
  "span",
  "strong",
  "sub",
  "sup",
  "table",
  "tbody",
  "td",
  "tfoot",
  "th",
  "thead",
  "tr",
  "ul",
]);
const VOID = new Set(["br", "hr", "img", "input"]);
/** Deeper than this, a tree is not written out (Markdown nests a few levels; a hostile one more). */
const MAX_DEPTH = 200;

type Props = Record<string, unknown> & { children?: ReactNode };

/** The attributes kept on an element, each checked; the rest are dropped. */
function attributes(tag: string, p: Props): string {
  const out: string[] = [];
  const add = (name: string, value: string) => out.push(` ${name}="${escapeHtml(value)}"`);
  if (tag === "img") {
    const src = typeof p.src === "string" ? safeImageSrc(p.src, "") : null;
    if (src) add("src", src);
    if (typeof p.alt === "string") add("alt", p.alt);
  }
  if (tag === "input" && p.type === "checkbox") {
    add("type", "checkbox");
    if (p.checked) out.push(" checked");
    out.push(" disabled");
  }
  if (tag === "ol" && typeof p.start === "number" && Number.isInteger(p.start)) add("start", String(p.start));
  if (tag === "td" || tag === "th") {
    const align = (p.style as { textAlign?: unknown } | undefined)?.textAlign;
    if (align === "right" || align === "center") add("class", `align-${align}`);
  }
  return out.join("");
}

function link(p: Props, depth: number): string {
  const inner = write(p.children, depth + 1);
  const href = typeof p.href === "string" ? p.href : "";
  const text = typeof p.children === "string" ? p.children : null;
  // The address as text (not a reference): a reader sees where it pointed, nothing is fetched.
  const url = href && href !== text ? ` <span class="link-url">(${escapeHtml(href)})</span>` : "";
  return `<span class="link">${inner}</span>${url}`;
}

/**
 * A React tree of plain elements and hook-free function components (what the Markdown renderer
 * makes) as HTML, through the allow-list above.
 */
export function write(node: ReactNode, depth = 0): string {
  if (depth > MAX_DEPTH || node == null || typeof node === "boolean") return "";
  if (typeof node === "string" || typeof node === "number" || typeof node === "bigint")
    return escapeHtml(String(node));
  if (Array.isArray(node)) return node.map((n) => write(n as ReactNode, depth)).join("");
  if (!isValidElement(node)) return "";
  const el = node as ReactElement<Props>;
  const p = el.props;
  if (el.type === Fragment) return write(p.children, depth + 1);
  if (typeof el.type === "function") return write((el.type as (props: Props) => ReactNode)(p), depth + 1);
  if (typeof el.type !== "string") return "";
  const tag = el.type;
  if (tag === "a") return link(p, depth);
  if (!KEPT.has(tag)) return "";
  if (tag === "img" && !(typeof p.src === "string" && safeImageSrc(p.src, ""))) return "";
  if (VOID.has(tag)) return `<${tag}${attributes(tag, p)}>`;
  return `<${tag}${attributes(tag, p)}>${write(p.children, depth + 1)}</${tag}>`;
}

/** One text block: Markdown when it is Markdown (and not a long text), else the text as it is. */
export function textHtml(text: string): string {
  const kind = classifyText(text);
  if (kind.markdown && text.length <= LONG_TEXT)
    return `<div class="md">${write(<MarkdownBody text={text} />)}</div>`;
  return kind.preformatted ? `<pre>${escapeHtml(text)}</pre>` : `<div class="text">${escapeHtml(text)}</div>`;
}

/** Blocks as the exported file shows them (the `blocks` option of lib/episodes/html-export.ts). */
export function blocksHtml(blocks: readonly Block[]): string {
  if (blocks.length === 0) return `<p class="muted">No blocks.</p>`;
  const parts = blocks.map((b, i) => {
    if (b.type === "text") return textHtml(b.text);
    const src = safeImageSrc(b.data, b.mimeType);
    if (!src)
      return `<p class="note">Image not shown: ${escapeHtml(b.mimeType || "unknown type")} is not a raster image (png, jpeg, gif, webp) in base64.</p>`;
    return `<figure><img src="${escapeHtml(src)}" alt="Block ${i + 1}: ${escapeHtml(b.mimeType)} observation"><figcaption>${escapeHtml(b.mimeType)}</figcaption></figure>`;
  });
  return `<div class="blocks">${parts.join("")}</div>`;
}
