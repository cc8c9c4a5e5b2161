"use client";
// Reward per step (bars) and cumulative reward (line), hand-drawn SVG. Clicking a bar selects
// the step.
import { cumulativeRewards } from "@/lib/episodes/model";
import { formatReward, rewardLabel } from "@/lib/episodes/reward";
import type { TrajectoryStep } from "@/lib/episodes/schema";

export function RewardChart({
  steps,
  selected,
  onSelect,
  height = 120,
}: {
  steps: TrajectoryStep[];
  selected?: number;
  onSelect?: (index: number) => void;
  height?: number;
}) {
  if (steps.length === 0) return <p className="text-xs text-zinc-500">No steps yet.</p>;
  const cum = cumulativeRewards(steps);
  const values = [...steps.map((s) => s.reward ?? 0), ...cum, 0];
  const min = Math.min(...values);
  // All-zero (or constant) rewards still get a readable scale with the zero line at the bottom.
  const max = Math.max(...values) === min ? min + 1 : Math.max(...values);
  const span = max - min;
  const w = Math.max(steps.length * 28, 600);
  const pad = 6;
  const y = (v: number) => pad + ((max - v) / span) * (height - 2 * pad);
  const bw = Math.min(w / steps.length, 48);
  const line = cum.map((c, i) => `${i === 0 ? "M" : "L"}${(i + 0.5) * bw},${y(c)}`).join(" ");
  return (
    <figure className="overflow-x-auto">
      <svg
        role="img"
        aria-label={`Reward per step chart: ${steps.length} steps, total ${formatReward(cum.at(-1))}`}
        viewBox={`0 0 ${w} ${height}`}
        preserveAspectRatio="none"
        width="100%"
        height={height}
        style={{ minWidth: Math.min(w, steps.length * 12) }}
        className="text-zinc-400"
      >
        <line
          x1={0}
          x2={w}
          y1={y(0)}
          y2={y(0)}
          stroke="currentColor"
          strokeWidth={1}
          vectorEffect="non-scaling-stroke"
        />
        {steps.map((s, i) => {
          const r = s.reward ?? 0;
          const top = Math.min(y(r), y(0));
          const h = Math.max(Math.abs(y(r) - y(0)), r === 0 ? 1 : 0);
          return (
            // biome-ignore lint/a11y/noStaticElementInteractions: a mouse shortcut; j/k and the list are the keyboard path
            <g key={s.index} onClick={() => onSelect?.(s.index)} className="cursor-pointer">
              <title>{`Step ${s.index}: reward ${rewardLabel(s.reward, { signed: true })}, cumulative ${formatReward(cum[i])}`}</title>
              <rect
                x={i * bw + bw * 0.2}
                width={bw * 0.6}
                y={top}
                height={h}
                className={
                  s.index === selected
                    ? "fill-indigo-600 dark:fill-indigo-400"
                    : r < 0
                      ? "fill-red-400"
                      : "fill-emerald-500/70"
                }
              />
            </g>
          );
        })}
        <path
          d={line}
          fill="none"
          strokeWidth={2}
          vectorEffect="non-scaling-stroke"
          className="stroke-amber-500"
        />
      </svg>
      <figcaption className="mt-1 flex gap-3 text-[11px] text-zinc-500">
        <span>
          <span className="mr-1 inline-block size-2 bg-emerald-500/70" />
          reward per step
        </span>
        <span>
          <span className="mr-1 inline-block h-0.5 w-3 bg-amber-500 align-middle" />
          cumulative
        </span>
      </figcaption>
    </figure>
  );
}
