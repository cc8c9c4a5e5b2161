// The Markdown of a prompt rendered on the server, for the pages that show it at once (the
// episode page, a trajectory with no steps): the page arrives with the Markdown laid out, instead
// of raw text (`##`, `|---`) that the browser re-lays out once the Markdown renderer has loaded.
// Server code only (no directive): it reaches the browser as HTML, not as script.
import type { ReactNode } from "react";
import type { Block } from "@/lib/ors/protocol";
import { LONG_TEXT } from "./long-text-limits";
import { MarkdownBody } from "./markdown-render";
import { classifyText, couldBeMarkdown } from "./text-kind";

/** Blocks whose text adds up to more than this are not rendered here (the browser pages them). */
const MAX_PRERENDER_CHARS = 200_000;

/** What a page hands to BlocksView: the blocks, and each Markdown text block already rendered. */
export interface PrerenderedBlocks {
  blocks: Block[];
  rendered: (ReactNode | null)[];
}

/** Renders the Markdown text blocks of `blocks` (null for the others, and for long texts). */
export function prerenderBlocks(blocks: Block[]): PrerenderedBlocks {
  let budget = MAX_PRERENDER_CHARS;
  const rendered = blocks.map((b, i) => {
    if (b.type !== "text" || b.text.length > LONG_TEXT || b.text.length > budget) return null;
    if (!couldBeMarkdown(b.text) || !classifyText(b.text).markdown) return null;
    budget -= b.text.length;
    return <MarkdownBody key={i} text={b.text} />;
  });
  return { blocks, rendered };
}
