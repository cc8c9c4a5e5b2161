"use client";
// A run's reward histogram: the chart (recharts) loads lazily with next/dynamic, and the same
// bins are a table for screen readers and for reading exact counts.
import dynamic from "next/dynamic";
import { Skeleton } from "@/components/ui/skeleton";
import { formatReward } from "@/lib/trajectory/reward";
import { formatRange } from "@/lib/ui/run-format";
import type { HistogramBin } from "./reward-histogram-chart";

const Chart = dynamic(() => import("./reward-histogram-chart"), {
  ssr: false,
  loading: () => <Skeleton className="h-[180px] w-full" />,
});

export function RewardHistogram({ bins }: { bins: HistogramBin[] }) {
  if (bins.length === 0)
    return <p className="text-xs text-zinc-500">No completed episode yet: no rewards to show.</p>;
  const total = bins.reduce((a, b) => a + b.count, 0);
  return (
    <figure aria-label="Reward histogram" className="space-y-2">
      <div aria-hidden="true" className="text-zinc-500 dark:text-zinc-400">
        <Chart bins={bins} />
      </div>
      <details className="text-xs">
        <summary className="cursor-pointer text-zinc-500">As a table</summary>
        <table className="mt-1 w-full text-left">
          <caption className="sr-only">Completed episodes by reward ({total} in all)</caption>
          <thead className="text-zinc-500">
            <tr>
              <th className="pr-3 font-medium">Reward</th>
              <th className="text-right font-medium">Episodes</th>
            </tr>
          </thead>
          <tbody className="font-mono tabular-nums">
            {bins.map((b, i) => (
              <tr key={i}>
                <td className="pr-3">
                  {b.from === b.to ? formatReward(b.from, { digits: 4 }) : formatRange(b.from, b.to)}
                </td>
                <td className="text-right">{b.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
