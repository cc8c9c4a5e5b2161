"use client";

// Accessible tabs (WAI-ARIA tabs pattern): a tablist with roving focus and arrow/Home/End keys.
// Controlled: the caller keeps the value (usually in the URL, e.g. `?tab=tools`). Given `hrefOf`,
// each tab is a real link to its view: a click before React has hydrated the page (it arrived
// server-rendered) still opens the tab, as a page load; once hydrated, a plain click switches here.
import { type KeyboardEvent, type MouseEvent, type ReactNode, useRef } from "react";
import { cn } from "@/lib/ui/cn";

export type TabItem = { value: string; label: ReactNode; count?: number };

export function tabId(idBase: string, value: string) {
  return `${idBase}-tab-${value}`;
}
export function panelId(idBase: string, value: string) {
  return `${idBase}-panel-${value}`;
}

/** A click the browser should handle itself (a new tab or window, a download). */
function isModifiedClick(e: MouseEvent): boolean {
  return e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey;
}

export function Tabs({
  items,
  value,
  onValueChange,
  hrefOf,
  label,
  idBase,
  className,
}: {
  items: TabItem[];
  value: string;
  onValueChange: (value: string) => void;
  /** The URL of each tab's view: tabs become links (see the header). */
  hrefOf?: (value: string) => string;
  label: string;
  idBase: string;
  className?: string;
}) {
  const refs = useRef<Record<string, HTMLElement | null>>({});
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const i = items.findIndex((t) => t.value === value);
    let next = -1;
    if (e.key === "ArrowRight") next = (i + 1) % items.length;
    else if (e.key === "ArrowLeft") next = (i - 1 + items.length) % items.length;
    else if (e.key === "Home") next = 0;
    else if (e.key === "End") next = items.length - 1;
    if (next < 0) return;
    e.preventDefault();
    const v = items[next]!.value;
    onValueChange(v);
    refs.current[v]?.focus();
  };
  return (
    <div
      role="tablist"
      aria-label={label}
      onKeyDown={onKeyDown}
      className={cn("flex items-end gap-1 border-b border-zinc-200 dark:border-zinc-800", className)}
    >
      {items.map((t) => {
        const selected = t.value === value;
        const props = {
          ref: (el: HTMLElement | null) => {
            refs.current[t.value] = el;
          },
          role: "tab",
          id: tabId(idBase, t.value),
          "aria-selected": selected,
          "aria-controls": panelId(idBase, t.value),
          tabIndex: selected ? 0 : -1,
          className: cn(
            "-mb-px inline-flex h-8 items-center gap-1.5 border-b-2 px-2.5 text-sm font-medium transition-colors",
            selected
              ? "border-indigo-500 text-zinc-900 dark:text-zinc-50"
              : "border-transparent text-zinc-500 hover:text-zinc-800 dark:text-zinc-400 dark:hover:text-zinc-200",
          ),
        };
        const content = (
          <>
            {t.label}
            {t.count !== undefined && (
              <span className="rounded bg-zinc-100 px-1 text-[11px] tabular-nums text-zinc-600 dark:bg-zinc-800 dark:text-zinc-400">
                {t.count}
              </span>
            )}
          </>
        );
        return hrefOf ? (
          <a
            key={t.value}
            {...props}
            href={hrefOf(t.value)}
            onClick={(e) => {
              if (isModifiedClick(e)) return;
              e.preventDefault();
              onValueChange(t.value);
            }}
          >
            {content}
          </a>
        ) : (
          <button key={t.value} {...props} type="button" onClick={() => onValueChange(t.value)}>
            {content}
          </button>
        );
      })}
    </div>
  );
}

export function TabPanel({
  idBase,
  value,
  children,
  className,
}: {
  idBase: string;
  value: string;
  children: ReactNode;
  className?: string;
}) {
  return (
    <div
      role="tabpanel"
      id={panelId(idBase, value)}
      aria-labelledby={tabId(idBase, value)}
      className={className}
    >
      {children}
    </div>
  );
}
