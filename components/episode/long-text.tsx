"use client";
// A long text block of environment output (over LONG_TEXT characters: a log, a dump, a 4 MiB result
// stored at the step-size cap), shown without one giant DOM node: the first page of about
// PAGE_CHARS characters, "Show more" for the next pages, "Show all" for every line in a
// virtualized list (its code loads on first use), and "Download" for the whole text as a file.
import { Download } from "lucide-react";
import { lazy, Suspense, useMemo, useState } from "react";
import { cn } from "@/lib/ui/cn";

import { LONG_TEXT, PAGE_CHARS } from "./long-text-limits";

export { LONG_TEXT, PAGE_CHARS };

/** At most this many pages are shown one after the other; beyond, "Show all" (virtualized). */
const MAX_PAGES = 20;

const AllLines = lazy(() => import("./long-text-all").then((m) => ({ default: m.AllLines })));

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(2)} MB`;
}

/** The UTF-8 size of a string, counted (no copy of a 50 MiB text is made to measure it). */
export function utf8Bytes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** Where the page starting at `start` ends: after the last line break within the page, if any. */
export function pageEnd(text: string, start: number, size = PAGE_CHARS): number {
  const end = Math.min(text.length, start + size);
  if (end === text.length) return end;
  const nl = text.lastIndexOf("\n", end - 1);
  return nl >= start + size / 2 ? nl + 1 : end;
}

/** Saves `text` as a file (a Blob URL, released after the click). */
function download(text: string, name: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const linkButton =
  "inline-flex items-center gap-1 rounded px-1 font-medium text-sky-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-sky-500 dark:text-sky-400 [&_svg]:size-3.5";

export function LongText({ text, name, label }: { text: string; name: string; label: string }) {
  const [pages, setPages] = useState(1);
  const [all, setAll] = useState(false);
  const bytes = useMemo(() => utf8Bytes(text), [text]);
  const shownEnd = useMemo(() => {
    let end = 0;
    for (let p = 0; p < pages && end < text.length; p++) end = pageEnd(text, end);
    return end;
  }, [text, pages]);
  const rest = text.length - shownEnd;
  return (
    <div className="flex flex-col gap-1">
      {all ? (
        <Suspense
          fallback={
            <p role="status" className="text-xs text-zinc-500">
              Loading the lines…
            </p>
          }
        >
          <AllLines text={text} label={label} />
        </Suspense>
      ) : (
        <section
          aria-label={label}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region is reached by keyboard
          tabIndex={0}
          className="max-h-[32rem] overflow-auto rounded-md bg-zinc-50 p-3 [contain:content] dark:bg-zinc-900"
        >
          <pre className="whitespace-pre-wrap break-words font-mono text-[13px] leading-snug">
            {text.slice(0, shownEnd)}
          </pre>
        </section>
      )}
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-zinc-500 dark:text-zinc-400">
        <span>
          {formatBytes(bytes)} of text, {text.length.toLocaleString()} characters
          {all ? "" : rest > 0 ? `; showing the first ${shownEnd.toLocaleString()}` : ""}
        </span>
        {!all && rest > 0 && pages < MAX_PAGES && (
          <button type="button" className={linkButton} onClick={() => setPages((p) => p + 1)}>
            Show more
          </button>
        )}
        {!all && rest > 0 && (
          <button type="button" className={linkButton} onClick={() => setAll(true)}>
            Show all
          </button>
        )}
        {(all || pages > 1) && (
          <button
            type="button"
            className={cn(linkButton)}
            onClick={() => {
              setAll(false);
              setPages(1);
            }}
          >
            Collapse
          </button>
        )}
        <button type="button" className={linkButton} onClick={() => download(text, name)}>
          <Download aria-hidden="true" />
          Download <span className="sr-only">{label.toLowerCase()}</span>
        </button>
      </div>
    </div>
  );
}
