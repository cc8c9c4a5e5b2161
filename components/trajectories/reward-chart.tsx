"use client";
// Reward per step (bars) and cumulative reward (line), hand-drawn SVG. Clicking a bar selects
// the step. Steps called after the episode finished (by an outside client) are drawn apart: grey,
// hatched, beyond a dashed "end" line, and the cumulative line does not count them.
import { useId } from "react";
import { cumulativeRewards } from "@/lib/trajectory/model";
import { formatReward, rewardLabel } from "@/lib/trajectory/reward";
import type { TrajectoryStep } from "@/lib/trajectory/schema";

/** Where bars and the line go: the chart's width, a bar's width, and a reward's height. */
interface Scale {
  w: number;
  bw: number;
  height: number;
  y: (v: number) => number;
}

function scaleOf(steps: TrajectoryStep[], cum: number[], height: number): Scale {
  const values = [...steps.map((s) => s.reward ?? 0), ...cum, 0];
  const min = Math.min(...values);
  // All-zero (or constant) rewards still get a readable scale with the zero line at the bottom.
  const max = Math.max(...values) === min ? min + 1 : Math.max(...values);
  const w = Math.max(steps.length * 28, 600);
  const pad = 6;
  return {
    w,
    bw: Math.min(w / steps.length, 48),
    height,
    y: (v: number) => pad + ((max - v) / (max - min)) * (height - 2 * pad),
  };
}

/** What the chart says to a screen reader: the steps, the total, and which steps do not count. */
function chartLabel(steps: TrajectoryStep[], cum: number[], after: number[]): string {
  const notCounted = after.length
    ? `; ${after.length === 1 ? `step ${after[0]} was` : `steps ${after[0]}–${after.at(-1)} were`} called after the episode finished and ${after.length === 1 ? "does" : "do"} not count`
    : "";
  return `Reward per step chart: ${steps.length} steps, total ${formatReward(cum.at(-1))}${notCounted}`;
}

function Hatch({ id }: { id: string }) {
  return (
    <defs>
      <pattern id={id} width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
        <rect width="6" height="6" className="fill-zinc-300 dark:fill-zinc-700" />
        <line x1="0" y1="0" x2="0" y2="6" strokeWidth="3" className="stroke-zinc-400 dark:stroke-zinc-500" />
      </pattern>
    </defs>
  );
}

function EndLine({ x, height }: { x: number; height: number }) {
  return (
    <g data-testid="episode-end">
      <line
        x1={x}
        x2={x}
        y1={0}
        y2={height}
        stroke="currentColor"
        strokeDasharray="4 3"
        vectorEffect="non-scaling-stroke"
      />
      <text x={x + 3} y={10} className="fill-zinc-500 text-[9px]">
        end
      </text>
    </g>
  );
}

function Bar({
  step,
  i,
  cumulative,
  scale,
  selected,
  hatchId,
  onSelect,
}: {
  step: TrajectoryStep;
  i: number;
  cumulative: number | undefined;
  scale: Scale;
  selected: boolean;
  hatchId: string;
  onSelect?: (index: number) => void;
}) {
  const { y, bw } = scale;
  const r = step.reward ?? 0;
  const top = Math.min(y(r), y(0));
  const h = Math.max(Math.abs(y(r) - y(0)), r === 0 ? 1 : 0);
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: a mouse shortcut; j/k and the list are the keyboard path
    <g
      onClick={() => onSelect?.(step.index)}
      className="cursor-pointer"
      data-after-end={step.after_end ? "true" : undefined}
    >
      <title>
        {step.after_end
          ? `Step ${step.index}: called after the episode finished, not counted (reward ${rewardLabel(step.reward, { signed: true })})`
          : `Step ${step.index}: reward ${rewardLabel(step.reward, { signed: true })}, cumulative ${formatReward(cumulative)}`}
      </title>
      <rect
        x={i * bw + bw * 0.2}
        width={bw * 0.6}
        y={top}
        height={h}
        fill={step.after_end && !selected ? `url(#${hatchId})` : undefined}
        className={
          selected
            ? "fill-indigo-600 dark:fill-indigo-400"
            : step.after_end
              ? "opacity-70"
              : r < 0
                ? "fill-red-400"
                : "fill-emerald-500/70"
        }
      />
    </g>
  );
}

function Legend({ afterEnd }: { afterEnd: boolean }) {
  return (
    <figcaption className="mt-1 flex gap-3 text-[11px] text-zinc-500">
      <span>
        <span className="mr-1 inline-block size-2 bg-emerald-500/70" />
        reward per step
      </span>
      <span>
        <span className="mr-1 inline-block h-0.5 w-3 bg-amber-500 align-middle" />
        cumulative
      </span>
      {afterEnd && (
        <span>
          <span className="mr-1 inline-block size-2 bg-[repeating-linear-gradient(45deg,#a1a1aa_0_2px,#e4e4e7_2px_4px)]" />
          after the end (not counted)
        </span>
      )}
    </figcaption>
  );
}

export function RewardChart({
  steps,
  selected,
  onSelect,
  height = 120,
  ended = false,
}: {
  steps: TrajectoryStep[];
  selected?: number;
  onSelect?: (index: number) => void;
  height?: number;
  /** The episode has ended: no step is still to come. */
  ended?: boolean;
}) {
  const hatchId = `after-end-${useId().replace(/:/g, "")}`;
  if (steps.length === 0)
    return (
      <p className="text-xs text-zinc-500">
        {ended ? "No steps: the episode ended without a call." : "No steps yet."}
      </p>
    );
  const cum = cumulativeRewards(steps);
  const after = steps.filter((s) => s.after_end).map((s) => s.index);
  // Where the episode ended: after the last step that counts (after-end steps come last).
  const endAt = steps.findIndex((s) => s.after_end);
  const scale = scaleOf(steps, cum, height);
  // The cumulative line stops at the end: after-end steps add nothing and are not drawn on it.
  const counted = endAt >= 0 ? cum.slice(0, endAt) : cum;
  const line = counted.map((c, i) => `${i === 0 ? "M" : "L"}${(i + 0.5) * scale.bw},${scale.y(c)}`).join(" ");
  return (
    <figure className="overflow-x-auto">
      <svg
        role="img"
        aria-label={chartLabel(steps, cum, after)}
        viewBox={`0 0 ${scale.w} ${height}`}
        preserveAspectRatio="none"
        width="100%"
        height={height}
        style={{ minWidth: Math.min(scale.w, steps.length * 12) }}
        className="text-zinc-400"
      >
        <line
          x1={0}
          x2={scale.w}
          y1={scale.y(0)}
          y2={scale.y(0)}
          stroke="currentColor"
          strokeWidth={1}
          vectorEffect="non-scaling-stroke"
        />
        <Hatch id={hatchId} />
        {endAt > 0 && <EndLine x={endAt * scale.bw} height={height} />}
        {steps.map((s, i) => (
          <Bar
            key={s.index}
            step={s}
            i={i}
            cumulative={cum[i]}
            scale={scale}
            selected={s.index === selected}
            hatchId={hatchId}
            onSelect={onSelect}
          />
        ))}
        <path
          d={line}
          fill="none"
          strokeWidth={2}
          vectorEffect="non-scaling-stroke"
          className="stroke-amber-500"
        />
      </svg>
      <Legend afterEnd={after.length > 0} />
    </figure>
  );
}
