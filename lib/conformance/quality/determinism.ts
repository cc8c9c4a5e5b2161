// `nondeterministic` (docs/check.md "Environment quality"): the same actions on the same task give
// different outputs or rewards. Each episode played (random inputs, the oracle) is compared with its
// replay — the same calls in a new session on the same task — step by step: the prompt, then each
// call's ok/error, output blocks, reward and `finished`. The session's own id and each call's
// task_id are masked (they differ by design); metadata is not compared. Isomorphic.

import type { Block } from "@/lib/ors/protocol";
import { compareTrajectoriesHref } from "@/lib/routes";
import type { Trajectory, TrajectoryStep } from "@/lib/trajectory/schema";
import type { PlayedEpisode } from "./played";
import { brief } from "./played";
import { type QualityEvidence, trajectoryRef } from "./types";

export interface Difference {
  /** The step that differs (1-based), or null for the prompt. */
  step: number | null;
  /** What differs, e.g. `reward 1 then 0`. */
  what: string;
  /** Whether the rewards differ. */
  reward: boolean;
}

function masker(t: Trajectory): (s: string) => string {
  const ids = [t.sid, ...t.steps.map((s) => s.task_id)].filter((x): x is string => !!x && x.length >= 6);
  return (s) => {
    let out = s;
    for (const id of ids) out = out.split(id).join("<id>");
    return out;
  };
}

function blocksText(blocks: readonly Block[] | null, mask: (s: string) => string): string {
  return JSON.stringify(
    (blocks ?? []).map((b) =>
      b.type === "text" ? { type: "text", text: mask(b.text) } : { type: b.type, data: b.data },
    ),
  );
}

/** The first text that differs, shortly: `"heads" / "tails"`. */
function textDiff(a: readonly Block[], b: readonly Block[]): string {
  const ta = a.map((x) => (x.type === "text" ? x.text : `[${x.type}]`)).join("\n");
  const tb = b.map((x) => (x.type === "text" ? x.text : `[${x.type}]`)).join("\n");
  let i = 0;
  while (i < ta.length && i < tb.length && ta[i] === tb[i]) i++;
  const from = Math.max(0, i - 15);
  const cut = (s: string) => `${from > 0 ? "…" : ""}${s.slice(from, i + 25)}${s.length > i + 25 ? "…" : ""}`;
  return `${JSON.stringify(cut(ta))} then ${JSON.stringify(cut(tb))}`;
}

const num = (x: number | null) => (x === null ? "none" : String(Number(x.toPrecision(6))));

function compareStep(
  a: TrajectoryStep,
  b: TrajectoryStep,
  ma: (s: string) => string,
  mb: (s: string) => string,
): { what: string; reward: boolean } | null {
  const parts: string[] = [];
  if (a.ok !== b.ok)
    parts.push(
      a.ok
        ? `it succeeded, then failed (${brief(b.error, 80)})`
        : `it failed (${brief(a.error, 80)}), then succeeded`,
    );
  else if (!a.ok && ma(a.error ?? "") !== mb(b.error ?? ""))
    parts.push(`the error ${brief(a.error, 60)} then ${brief(b.error, 60)}`);
  if (a.reward !== b.reward) parts.push(`reward ${num(a.reward)} then ${num(b.reward)}`);
  if (a.finished !== b.finished) parts.push(`finished ${a.finished} then ${b.finished}`);
  if (a.ok && b.ok && blocksText(a.blocks, ma) !== blocksText(b.blocks, mb))
    parts.push(`the output ${textDiff(a.blocks, b.blocks)}`);
  return parts.length ? { what: parts.join("; "), reward: a.reward !== b.reward } : null;
}

/** The first difference between an episode and its replay, or null (also when they cannot be compared). */
export function firstDifference(a: Trajectory, b: Trajectory): Difference | null {
  const ma = masker(a);
  const mb = masker(b);
  if (a.prompt && b.prompt && blocksText(a.prompt, ma) !== blocksText(b.prompt, mb))
    return { step: null, what: `the prompt ${textDiff(a.prompt, b.prompt)}`, reward: false };
  const sa = a.steps.filter((s) => !s.after_end && s.ok !== null);
  const sb = b.steps.filter((s) => !s.after_end && s.ok !== null);
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const x = sa[i]!;
    const y = sb[i]!;
    // The replay plays the same calls; a different one means it is not a replay of this episode.
    if (x.tool !== y.tool || JSON.stringify(x.input) !== JSON.stringify(y.input)) return null;
    const diff = compareStep(x, y, ma, mb);
    if (diff) return { step: i + 1, ...diff };
  }
  return null;
}

export interface DeterminismAnalysis {
  /** Episode pairs compared (both played to their end). */
  compared: number;
  evidence: QualityEvidence[];
  /** How many of the differences are in rewards (the rest: outputs or the prompt). */
  rewardDifferences: number;
}

/** Compares each episode with its replay (matched by task and repeat). */
export function compareReplays(
  pairs: readonly { played: PlayedEpisode[]; replayed: PlayedEpisode[]; role: string }[],
): DeterminismAnalysis {
  const out: DeterminismAnalysis = { compared: 0, evidence: [], rewardDifferences: 0 };
  for (const { played, replayed, role } of pairs) {
    const replays = new Map(replayed.map((e) => [`${e.task}/${e.repeat}`, e]));
    for (const e of played) {
      const r = replays.get(`${e.task}/${e.repeat}`);
      if (e.status !== "done" || r?.status !== "done" || !e.trajectory || !r.trajectory) continue;
      out.compared++;
      const d = firstDifference(e.trajectory, r.trajectory);
      if (!d) continue;
      if (d.reward) out.rewardDifferences++;
      const step = d.step === null ? null : e.trajectory.steps.filter((s) => !s.after_end)[d.step - 1];
      out.evidence.push({
        task: e.task,
        what: `${role}, ${d.step === null ? "the prompt" : `step ${d.step}`}: ${d.what}`,
        call: step ? { tool: step.tool, input: step.input } : null,
        trajectory: trajectoryRef(e.trajectory.id, step?.index ?? null),
        other: trajectoryRef(
          r.trajectory.id,
          d.step === null
            ? null
            : (r.trajectory.steps.filter((s) => !s.after_end)[d.step - 1]?.index ?? null),
        ),
        compareHref: compareTrajectoriesHref(e.trajectory.id, r.trajectory.id),
      });
    }
  }
  return out;
}
