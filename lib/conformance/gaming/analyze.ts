// The probes' verdicts (docs/check.md "Can the reward be gamed?"): for each probe, what it earned
// over the best reward of the tasks it played — a finding from PROBE_SHARE up — with the tasks that
// paid as evidence (the best-paying attempt of each, and the command that plays it again). The
// waivers and the summary are the quality checks'. Isomorphic and pure.
import { MAX_EVIDENCE } from "../quality/types";
import type { PlayedAttempt } from "./play";
import { reproduceCommand } from "./reproduce";
import { findingShare, PROBES, type ProbeEvidence, type ProbeId, type ProbeResult } from "./types";

const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;
const num = (x: number) => String(Number(x.toPrecision(4)));
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

export interface AnalyzeOptions {
  url: string;
  env: string;
  split: string;
  apiKey: boolean;
  allow: readonly string[];
}

/** Why a probe played nothing, in words. */
const NOTHING: Record<ProbeId, string> = {
  "empty-answer": "the reference answers have no free text field to empty",
  "constant-answer": "every task's reference answer is the same: there is no other to try",
  "random-input": "no random valid input could be made from the answer tool's schema",
  "prompt-echo": "the reference answers have no free text field (or the prompts no text)",
  "format-games": "the reference answers have no free text to play with",
  "retry-until-pays": "no task could be played",
  "after-finished": "no reference episode ended with finished: true",
  "task-fields": "no task field is hidden from the prompt (or the task objects could not be read)",
};

function evidenceOf(best: PlayedAttempt, o: AnalyzeOptions): ProbeEvidence {
  const a = best.attempt;
  const probeCall = best.calls.find((c) => c.role === "probe") ?? best.calls.at(-1) ?? null;
  return {
    task: a.task,
    what: `${a.variant}: reward ${num(best.gain)} of the best ${num(a.best)}`,
    call: probeCall ? { tool: probeCall.tool, input: probeCall.input } : null,
    trajectory: null,
    other: null,
    compareHref: null,
    variant: a.variant,
    calls: best.calls.map((c) => ({ tool: c.tool, input: c.input })),
    reward: best.gain,
    best: a.best,
    reproduce: reproduceCommand(o.url, { env: o.env, split: o.split, index: a.task }, best.calls, o.apiKey),
  };
}

function verdict(
  id: ProbeId,
  played: readonly PlayedAttempt[],
  o: AnalyzeOptions,
): Omit<ProbeResult, "id" | "title" | "waived" | "counted"> {
  const byTask = new Map<number, PlayedAttempt>();
  for (const p of played) {
    if (p.error) continue;
    const have = byTask.get(p.attempt.task);
    if (!have || p.gain > have.gain) byTask.set(p.attempt.task, p);
  }
  const tasks = [...byTask.values()].filter((p) => p.attempt.best > 0);
  const failed = played.filter((p) => p.error).length;
  if (!tasks.length)
    return {
      outcome: "not-exercised",
      observed: failed
        ? `${plural(failed, "episode")} could not be played (${played.find((p) => p.error)!.error})`
        : NOTHING[id],
      evidence: [],
      evidenceTotal: 0,
      share: null,
    };
  const bestSum = tasks.reduce((s, p) => s + p.attempt.best, 0);
  const gained = tasks.reduce((s, p) => s + Math.max(0, Math.min(p.gain, p.attempt.best)), 0);
  const share = gained / bestSum;
  const paying = tasks
    .filter((p) => p.gain > 0)
    .sort((x, y) => y.gain - x.gain || x.attempt.task - y.attempt.task);
  const what = `${paying.length} of ${plural(tasks.length, "task")} paid: ${num(gained)} of the best ${num(bestSum)}`;
  const threshold = findingShare(id);
  if (share < threshold || gained <= 0)
    return {
      outcome: "pass",
      observed:
        gained > 0
          ? `earned ${pct(share)} of the best reward (${what}), below the ${pct(threshold)} that makes a finding`
          : `earned nothing on ${plural(tasks.length, "task")}`,
      evidence: [],
      evidenceTotal: 0,
      share,
    };
  const evidence = paying.map((p) => evidenceOf(p, o));
  return {
    outcome: "finding",
    observed: `earned ${pct(share)} of the best reward (${what})`,
    evidence: evidence.slice(0, MAX_EVIDENCE),
    evidenceTotal: evidence.length,
    share,
  };
}

/** Every probe's result, in order, with the waivers (`allow`) applied. */
export function analyzeProbes(played: readonly PlayedAttempt[], o: AnalyzeOptions): ProbeResult[] {
  return PROBES.map((info) => {
    const v = verdict(
      info.id,
      played.filter((p) => p.attempt.probe === info.id),
      o,
    );
    const waived = o.allow.includes(info.id);
    return { ...info, ...v, waived, counted: v.outcome === "finding" && !waived };
  });
}

/** Every probe not exercised, saying why (the probes could not play). */
export function unplayedProbes(why: string, allow: readonly string[] = []): ProbeResult[] {
  return PROBES.map((info) => ({
    ...info,
    outcome: "not-exercised",
    observed: `not played: ${why}`,
    evidence: [],
    evidenceTotal: 0,
    share: null,
    waived: allow.includes(info.id),
    counted: false,
  }));
}
