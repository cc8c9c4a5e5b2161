"use client";
// The reward histogram drawn with recharts: this module is its own chunk, loaded only when a
// results page shows a histogram (components/runs/reward-histogram.tsx), so the chart library
// never weighs on any page's first load.
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatReward } from "@/lib/trajectory/reward";
import { formatRange } from "@/lib/ui/run-format";

export interface HistogramBin {
  from: number;
  to: number;
  count: number;
}

export default function RewardHistogramChart({
  bins,
  height = 180,
}: {
  bins: HistogramBin[];
  height?: number;
}) {
  const data = bins.map((b) => ({
    ...b,
    label: b.from === b.to ? formatReward(b.from, { digits: 3 }) : formatRange(b.from, b.to),
  }));
  return (
    <ResponsiveContainer width="100%" height={height}>
      <BarChart data={data} margin={{ top: 8, right: 8, bottom: 4, left: -16 }}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="currentColor" strokeOpacity={0.12} />
        <XAxis dataKey="label" tick={{ fontSize: 10, fill: "currentColor" }} interval="preserveStartEnd" />
        <YAxis allowDecimals={false} tick={{ fontSize: 10, fill: "currentColor" }} />
        <Tooltip
          cursor={{ fillOpacity: 0.08 }}
          contentStyle={{ fontSize: 12 }}
          formatter={(value) => [value, "episodes"]}
          labelFormatter={(label) => `reward ${label}`}
        />
        <Bar dataKey="count" fill="#6366f1" radius={[3, 3, 0, 0]} isAnimationActive={false} />
      </BarChart>
    </ResponsiveContainer>
  );
}
