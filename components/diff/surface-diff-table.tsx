"use client";

// The surface diff as a table (the compare view): each change with its class — breaking, compatible,
// cosmetic, in the colours the CLI prints them in — what changed, and where in the environment.
import { Badge } from "@/components/ui/badge";
import type { DiffReport } from "@/lib/conformance/diff/report";
import { verdictLine } from "@/lib/conformance/diff/report";
import { CHANGE_CLASS_COLORS, CHANGE_CLASS_TITLES, CHANGE_CLASSES } from "@/lib/conformance/diff/types";

export function SurfaceDiffTable({ report }: { report: DiffReport }) {
  return (
    <section aria-label="Surface diff" className="space-y-3">
      <p className="text-sm font-medium" data-testid="diff-verdict">
        {verdictLine(report)}
      </p>
      <ul className="flex flex-wrap gap-2 text-xs text-zinc-600 dark:text-zinc-400">
        {CHANGE_CLASSES.map((c) => (
          <li key={c} className="flex items-center gap-1.5">
            <Badge tone={CHANGE_CLASS_COLORS[c]}>{c}</Badge>
            <span>
              {report.counts[c]}: {CHANGE_CLASS_TITLES[c]}
            </span>
          </li>
        ))}
      </ul>
      {report.unread.map((u) => (
        <p
          key={`${u.side}/${u.env}/${u.error}`}
          role="alert"
          className="text-sm text-red-700 dark:text-red-300"
        >
          Not read on {u.side.toUpperCase()} ({u.env}): {u.error}
        </p>
      ))}
      {report.changes.length === 0 ? (
        <p className="text-sm text-zinc-500">No surface change.</p>
      ) : (
        <table className="w-full border-collapse text-left text-sm">
          <caption className="sr-only">
            Changes from {report.a.env} to {report.b.env}
          </caption>
          <thead>
            <tr className="border-b border-zinc-200 text-xs text-zinc-500 dark:border-zinc-800">
              {["Class", "Change", "Where"].map((h, i) => (
                <th scope="col" key={h} className={i < 2 ? "py-1.5 pr-3 font-medium" : "py-1.5 font-medium"}>
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {report.changes.map((c, i) => (
              <tr
                key={`${c.path}/${c.kind}/${i}`}
                className="border-b border-zinc-100 align-top dark:border-zinc-900"
              >
                <td className="py-1.5 pr-3">
                  <Badge tone={CHANGE_CLASS_COLORS[c.class]}>{c.class}</Badge>
                </td>
                <td className="py-1.5 pr-3">{c.message}</td>
                <td className="py-1.5 font-mono text-xs text-zinc-500">{`${c.env}${c.path}`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {report.omitted.changes > 0 && (
        <p className="text-xs text-zinc-500">… and {report.omitted.changes} more changes, counted above.</p>
      )}
    </section>
  );
}
