// The quality checks' verdicts from what was played (isomorphic): each of the six checks run over
// the sampled tasks and recorded episodes, a finding carrying the tasks, calls and trajectories that
// show it; waivers applied; the report's summary.
import { findAnswerLeaks } from "./answer-leak";
import { compareReplays } from "./determinism";
import type { QualityData } from "./played";
import { bestReward, noReward, oracleBelowMax, trivialReward, type Verdict } from "./rewards";
import { findCrashes } from "./tool-crash";
import {
  MAX_EVIDENCE,
  QUALITY_CHECKS,
  type QualityCheckId,
  type QualityEvidence,
  type QualityReport,
  type QualityResult,
} from "./types";

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

function answerLeak(data: QualityData): Verdict {
  const a = findAnswerLeaks(data);
  if (!a.compared)
    return {
      outcome: "not-exercised",
      observed: "no sampled task had both its object (/task) and a recorded prompt",
    };
  if (!a.fields.length)
    return {
      outcome: "pass",
      observed: `no field named like an answer in ${plural(a.compared, "task")} (answer, solution, target, label, ground_truth and their variants)`,
    };
  if (!a.leaks.length)
    return {
      outcome: "pass",
      observed: `${a.fields.map((f) => JSON.stringify(f)).join(", ")}: in no prompt of ${plural(a.compared, "task")}`,
    };
  return {
    outcome: "finding",
    observed: a.leaks
      .map(
        (l) =>
          `task field ${JSON.stringify(l.path)} is in the prompt of ${l.tasks} of ${plural(l.of, "task")}`,
      )
      .join("; "),
    evidence: a.leaks.flatMap((l) => l.evidence),
  };
}

function nondeterministic(data: QualityData): Verdict {
  const pairs = [{ played: data.random, replayed: data.randomReplay, role: "random" }];
  if (data.oracle) pairs.push({ played: data.oracle, replayed: data.oracleReplay ?? [], role: "oracle" });
  const d = compareReplays(pairs);
  if (!d.compared)
    return { outcome: "not-exercised", observed: "no episode and its replay were both played to their end" };
  if (!d.evidence.length)
    return {
      outcome: "pass",
      observed: `${plural(d.compared, "episode")} replayed with the same calls: the same prompts, outputs and rewards`,
    };
  return {
    outcome: "finding",
    observed: `${d.evidence.length} of ${plural(d.compared, "episode")} replayed with the same calls differed (${d.rewardDifferences} in their rewards)`,
    evidence: d.evidence,
  };
}

function toolCrash(data: QualityData): Verdict {
  const c = findCrashes(data);
  if (!c.calls) return { outcome: "not-exercised", observed: "no tool call was made" };
  if (!c.evidence.length)
    return {
      outcome: "pass",
      observed: `${plural(c.calls, "call")}, none failed with a server error${c.refused ? ` (${c.refused} refused by the environment: {"ok": false})` : ""}`,
    };
  return {
    outcome: "finding",
    observed: `${plural(c.evidence.length, "call")}${c.tools.length ? ` of ${c.tools.join(", ")}` : ""} failed with a server error (${c.calls} calls made)`,
    evidence: c.evidence,
  };
}

const CHECKERS: Record<QualityCheckId, (data: QualityData) => Verdict> = {
  "answer-leak": answerLeak,
  nondeterministic,
  "trivial-reward": trivialReward,
  "oracle-below-max": oracleBelowMax,
  "no-reward": noReward,
  "tool-crash": toolCrash,
};

function resultOf(id: QualityCheckId, v: Verdict, allow: readonly string[]): QualityResult {
  const info = QUALITY_CHECKS.find((c) => c.id === id)!;
  const evidence: QualityEvidence[] = v.outcome === "finding" ? v.evidence : [];
  const waived = allow.includes(id);
  return {
    ...info,
    outcome: v.outcome,
    observed: v.observed,
    evidence: evidence.slice(0, MAX_EVIDENCE),
    evidenceTotal: evidence.length,
    waived,
    counted: v.outcome === "finding" && !waived,
  };
}

/** The six checks' results, in order, with the waivers (`allow`) applied. */
export function analyzeQuality(data: QualityData, allow: readonly string[] = []): QualityResult[] {
  return QUALITY_CHECKS.map((c) => resultOf(c.id, CHECKERS[c.id](data), allow));
}

export { bestReward };

/** The summary of a report's results (`error`: the checks could not play); the probes' too. */
export function qualitySummary(
  results: readonly Pick<QualityResult, "outcome" | "waived" | "counted">[],
  error: string | null,
): QualityReport["summary"] {
  return {
    findings: results.filter((r) => r.outcome === "finding").length,
    waived: results.filter((r) => r.outcome === "finding" && r.waived).length,
    notExercised: results.filter((r) => r.outcome === "not-exercised").length,
    passed: error === null && !results.some((r) => r.counted),
  };
}

/** Every check not exercised, saying why (the checks could not play). */
export function unplayedResults(why: string, allow: readonly string[] = []): QualityResult[] {
  return QUALITY_CHECKS.map((c) => resultOf(c.id, { outcome: "not-exercised", observed: why }, allow));
}

/** What a report says of checks stopped before their end (Ctrl-C, --max-time): the probes' too. */
export function stoppedText(signal: AbortSignal): string {
  return `stopped before the end (${(signal.reason as Error | undefined)?.message ?? "stopped"}): what was played is analysed`;
}
