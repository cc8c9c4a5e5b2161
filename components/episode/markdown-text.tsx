"use client";
// Markdown of untrusted text blocks in the browser (loaded on demand by BlocksView): the rendering
// itself is markdown-render.tsx, shared with server pages.
import { memo } from "react";
import { MarkdownBody } from "./markdown-render";

export { remarkKeepLineBreaks } from "./markdown-render";

export const MarkdownText = memo(function MarkdownText({ text }: { text: string }) {
  return <MarkdownBody text={text} />;
});
