"use client";
// The runs pages' long tables: a real <table> laid out as a grid, its header sticky, and only the
// rows on screen rendered (TanStack Virtual's table pattern), so a run of 10,000 tasks scrolls as
// one of ten. The caller gives the columns, the header cells and each row's cells.
import { useVirtualizer } from "@tanstack/react-virtual";
import { type HTMLAttributes, type ReactNode, useRef } from "react";
import { cn } from "@/lib/ui/cn";

/** The virtualized rows of a table of `count` rows `rowHeight` high: its scroller and virtualizer. */
export function useVirtualRows(count: number, rowHeight: number) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scroller.current,
    estimateSize: () => rowHeight,
    overscan: 12,
  });
  return { scroller, virtualizer, rowHeight };
}

export type VirtualRows = ReturnType<typeof useVirtualRows>;

export function VirtualTable({
  rows,
  count,
  labelledBy,
  cols,
  minWidth,
  gap = "gap-2",
  header,
  row,
  rowKey,
  rowAttributes,
  empty,
  scrollerTestId,
}: {
  rows: VirtualRows;
  count: number;
  labelledBy: string;
  /** The grid's `grid-template-columns`. */
  cols: string;
  minWidth?: string;
  gap?: "gap-1" | "gap-2";
  /** The header row's `<th>` cells. */
  header: ReactNode;
  /** Row i's cells. */
  row: (i: number) => ReactNode;
  rowKey: (i: number) => string | number;
  /** More attributes of row i's <tr> (its highlight, its data-*). */
  rowAttributes?: (i: number) => HTMLAttributes<HTMLTableRowElement> & Record<`data-${string}`, unknown>;
  /** What an empty table says. */
  empty?: ReactNode;
  scrollerTestId?: string;
}) {
  const { scroller, virtualizer, rowHeight } = rows;
  return (
    <div ref={scroller} className="max-h-[60vh] overflow-auto text-xs" data-testid={scrollerTestId}>
      <table aria-labelledby={labelledBy} aria-rowcount={count + 1} className="grid" style={{ minWidth }}>
        <thead className="sticky top-0 z-10 grid border-b border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-950">
          <tr
            aria-rowindex={1}
            className={cn("grid items-center px-3 py-1.5 text-left font-semibold text-zinc-500", gap)}
            style={{ gridTemplateColumns: cols }}
          >
            {header}
          </tr>
        </thead>
        <tbody className="relative grid" style={{ height: count ? virtualizer.getTotalSize() : undefined }}>
          {count === 0 && empty && (
            <tr className="grid">
              <td className="p-4 text-center text-zinc-500">{empty}</td>
            </tr>
          )}
          {virtualizer.getVirtualItems().map((vi) => {
            const { className, style, ...more } = rowAttributes?.(vi.index) ?? {};
            return (
              <tr
                key={rowKey(vi.index)}
                aria-rowindex={vi.index + 2}
                {...more}
                className={cn(
                  "absolute left-0 grid w-full items-center border-b border-zinc-100 px-3 dark:border-zinc-900",
                  gap,
                  className,
                )}
                style={{ ...style, top: vi.start, height: rowHeight, gridTemplateColumns: cols }}
              >
                {row(vi.index)}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
