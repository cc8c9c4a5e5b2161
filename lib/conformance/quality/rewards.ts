// The reward checks (docs/check.md "Environment quality"), isomorphic:
// - `no-reward`: no tool ever gives a reward (every step's reward null; or every reward 0, the
//   oracle's too);
// - `trivial-reward`: random valid inputs reach the best reward — the oracle's on that task, else
//   the best seen — on most tasks (TRIVIAL_SHARE);
// - `oracle-below-max`: the oracle's episode reward is below the best seen, or it could not play.
import type { Trajectory } from "@/lib/trajectory/schema";
import type { PlayedEpisode, QualityData } from "./played";
import { allEpisodes } from "./played";
import { type QualityEvidence, trajectoryRef } from "./types";

/** Random inputs reaching the best reward on this share of the tasks is a trivial reward. */
export const TRIVIAL_SHARE = 0.8;
const EPS = 1e-9;

const fmt = (x: number) => String(Number(x.toPrecision(6)));
const pct = (a: number, b: number) => `${Math.round((a / b) * 100)}%`;

/** The reward of a done episode (null otherwise). */
function rewardOf(e: PlayedEpisode): number | null {
  return e.status === "done" ? (e.reward ?? 0) : null;
}

/** The best episode reward any policy got, or null when no episode was played to its end. */
export function bestReward(data: QualityData): number | null {
  let best: number | null = null;
  for (const { episode } of allEpisodes(data)) {
    const r = rewardOf(episode);
    if (r !== null && (best === null || r > best)) best = r;
  }
  return best;
}

/** The last step that gave a reward (else the last step) of an episode: the call that shows its reward. */
function showingStep(t: Trajectory | null) {
  const steps = (t?.steps ?? []).filter((s) => !s.after_end);
  return (
    [...steps].reverse().find((s) => s.reward !== null && s.reward !== 0) ?? steps[steps.length - 1] ?? null
  );
}

function evidenceOf(e: PlayedEpisode, what: string): QualityEvidence {
  const step = showingStep(e.trajectory);
  return {
    task: e.task,
    what,
    call: step ? { tool: step.tool, input: step.input } : null,
    trajectory: e.trajectory ? trajectoryRef(e.trajectory.id, step?.index ?? null) : null,
    other: null,
    compareHref: null,
  };
}

export type Verdict =
  | { outcome: "finding"; observed: string; evidence: QualityEvidence[] }
  | { outcome: "pass" | "not-exercised"; observed: string };

export function noReward(data: QualityData): Verdict {
  const played = allEpisodes(data).filter(({ episode }) => episode.trajectory?.steps.length);
  const steps = played.flatMap(({ episode }) => episode.trajectory!.steps.filter((s) => !s.after_end));
  if (!steps.length) return { outcome: "not-exercised", observed: "no tool call was made" };
  const numeric = steps.filter((s) => s.reward !== null);
  const rewarded = numeric.filter((s) => Math.abs(s.reward!) > EPS);
  const where = `${steps.length} call${steps.length === 1 ? "" : "s"} in ${played.length} episodes`;
  if (rewarded.length) {
    const best = bestReward(data);
    return {
      outcome: "pass",
      observed: `${rewarded.length} of ${where} gave a reward${best !== null ? `; the best episode reward was ${fmt(best)}` : ""}`,
    };
  }
  const examples = played
    .slice(0, 3)
    .map(({ role, episode }) =>
      evidenceOf(episode, `${role}: ${episode.trajectory!.steps.length} calls, none with a reward`),
    );
  if (!numeric.length)
    return {
      outcome: "finding",
      observed: `no tool gave a reward in ${where}: every reward was null`,
      evidence: examples,
    };
  if (data.oracle?.length)
    return {
      outcome: "finding",
      observed: `every reward was 0 in ${where}, the oracle's too: no reward is reachable`,
      evidence: examples,
    };
  return {
    outcome: "not-exercised",
    observed: `every reward was 0 in ${where}: random inputs earned nothing; an --oracle shows whether a reward is reachable`,
  };
}

export function trivialReward(data: QualityData): Verdict {
  const best = bestReward(data);
  const oracle = new Map(
    (data.oracle ?? [])
      .filter((e) => rewardOf(e) !== null)
      .map((e) => [`${e.task}/${e.repeat}`, rewardOf(e)!]),
  );
  const random = data.random.filter((e) => rewardOf(e) !== null);
  if (!random.length)
    return { outcome: "not-exercised", observed: "no random episode was played to its end" };
  let meaningful = 0;
  const reached: QualityEvidence[] = [];
  for (const e of random) {
    const target = oracle.get(`${e.task}/${e.repeat}`) ?? best;
    if (target === null || target <= EPS) continue;
    meaningful++;
    const r = rewardOf(e)!;
    if (r >= target - EPS)
      reached.push(
        evidenceOf(
          e,
          `random inputs got ${fmt(r)}, the ${oracle.has(`${e.task}/${e.repeat}`) ? "oracle's reward" : "best seen"} is ${fmt(target)}`,
        ),
      );
  }
  if (!meaningful)
    return {
      outcome: "not-exercised",
      observed: `no reward above 0 was seen${data.oracle ? ", the oracle's included" : ""}: nothing to reach${data.oracle ? "" : " (an --oracle shows the best reward)"}`,
    };
  const against = data.oracle ? "the oracle's reward on the task" : `the best reward seen (${fmt(best!)})`;
  const share = reached.length / meaningful;
  const observed = `random valid inputs reached ${against} on ${reached.length} of ${meaningful} tasks (${pct(reached.length, meaningful)})`;
  if (share >= TRIVIAL_SHARE) return { outcome: "finding", observed, evidence: reached };
  return {
    outcome: "pass",
    observed: `${observed}: below ${Math.round(TRIVIAL_SHARE * 100)}%`,
  };
}

export function oracleBelowMax(data: QualityData): Verdict {
  if (!data.oracle) return { outcome: "not-exercised", observed: "no --oracle was given" };
  if (!data.oracle.length) return { outcome: "not-exercised", observed: "the oracle played no episode" };
  const best = bestReward(data);
  const failing: QualityEvidence[] = [];
  for (const e of data.oracle) {
    const r = rewardOf(e);
    // Stopped episodes (cancelled: out of time) say nothing about the oracle.
    if (e.status === "errored")
      failing.push(evidenceOf(e, `the oracle's episode errored: ${e.error ?? "no reason given"}`));
    else if (r !== null && best !== null && best > EPS && r < best - EPS)
      failing.push(evidenceOf(e, `the oracle got ${fmt(r)}, the best seen is ${fmt(best)}`));
  }
  if (failing.length)
    return {
      outcome: "finding",
      observed: `the oracle fell short on ${failing.length} of ${data.oracle.length} tasks${best !== null && best > EPS ? ` (the best reward seen is ${fmt(best)})` : ""}`,
      evidence: failing,
    };
  if (best === null || best <= EPS)
    return {
      outcome: "not-exercised",
      observed: "no reward above 0 was seen, the oracle's included: the best reward is unknown",
    };
  return {
    outcome: "pass",
    observed: `the oracle reached the best reward seen (${fmt(best)}) on all ${data.oracle.length} tasks`,
  };
}
