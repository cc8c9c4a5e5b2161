"use client";
// Every line of a long text in a virtualized list (LongText's "Show all", loaded on first use):
// only the rows in view are in the DOM, each a slice of the text made when it is drawn, so a text
// of megabytes scrolls smoothly. A line longer than ROW_CHARS takes several rows.
import { useVirtualizer } from "@tanstack/react-virtual";
import { useMemo, useRef } from "react";

const ROW_HEIGHT = 20;
/** Longer lines are cut into rows of this many characters (a row never holds a megabyte). */
export const ROW_CHARS = 2000;

/** Where each row starts: after each line break, and every ROW_CHARS within a long line. */
export function rowStarts(text: string): Uint32Array {
  const starts: number[] = [0];
  let lineStart = 0;
  while (lineStart < text.length) {
    let nl = text.indexOf("\n", lineStart);
    if (nl < 0) nl = text.length;
    for (let at = lineStart + ROW_CHARS; at < nl; at += ROW_CHARS) starts.push(at);
    if (nl < text.length) starts.push(nl + 1);
    lineStart = nl + 1;
  }
  // A text ending with a line break has no empty last row.
  if (starts.length > 1 && starts[starts.length - 1] === text.length) starts.pop();
  return Uint32Array.from(starts);
}

export function AllLines({ text, label }: { text: string; label: string }) {
  const starts = useMemo(() => rowStarts(text), [text]);
  const parent = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: starts.length,
    getScrollElement: () => parent.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 20,
  });
  const rowText = (i: number) => {
    const end = i + 1 < starts.length ? starts[i + 1]! : text.length;
    const row = text.slice(starts[i]!, end);
    return row.endsWith("\n") ? row.slice(0, -1) : row;
  };
  return (
    <section
      ref={parent}
      aria-label={`${label}, all ${starts.length.toLocaleString()} lines`}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region is reached by keyboard
      tabIndex={0}
      className="h-[32rem] overflow-auto rounded-md bg-zinc-50 font-mono text-[13px] leading-5 dark:bg-zinc-900"
    >
      <div style={{ height: virtualizer.getTotalSize(), position: "relative", minWidth: "100%" }}>
        {virtualizer.getVirtualItems().map((row) => (
          <div
            key={row.index}
            className="absolute left-0 whitespace-pre px-3"
            style={{ top: row.start, height: ROW_HEIGHT }}
          >
            {rowText(row.index)}
          </div>
        ))}
      </div>
    </section>
  );
}
