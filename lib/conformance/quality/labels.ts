// Words for the quality checks shared by the text report, the JUnit report and the UI (isomorphic,
// no dependencies: the check page's bundle stays small).
import type { PlayRole, QualityOutcome, QualityReport, QualitySample } from "./types";

export const QUALITY_OUTCOME_TITLES: Record<QualityOutcome, string> = {
  finding: "Finding",
  "not-exercised": "Not exercised",
  pass: "Passed",
};

export const PLAY_ROLE_TITLES: Record<PlayRole, string> = {
  random: "random inputs",
  "random-replay": "their replay",
  oracle: "the oracle",
  "oracle-replay": "its replay",
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** `sound/train: 24 of 30 tasks (seed 1)` */
export function sampleLine(s: QualitySample): string {
  const all = s.tasks.length === s.splitSize;
  return `${s.environment}/${s.split}: ${all ? `all ${plural(s.splitSize, "task")}` : `${s.tasks.length} of ${s.splitSize} tasks (seed ${s.seed})`}`;
}

/** `random inputs 24 (run r1), their replay 24 (run r2), the oracle ...` */
export function playsLine(s: QualitySample): string {
  return s.plays
    .map(
      (p) =>
        `${PLAY_ROLE_TITLES[p.role]}${p.role === "oracle" ? ` (${p.label})` : ""}: ${plural(p.episodes, "episode")}${p.errored ? ` (${p.errored} errored)` : ""}, run ${p.runId}`,
    )
    .join("; ");
}

/** `48 calls: submit 30, note 18, inspect never` */
export function callsLine(s: QualitySample): string {
  const tools = s.tools.map((t) => `${t.name} ${t.calls || "never"}`).join(", ");
  return `${plural(s.calls, "call")}${tools ? `: ${tools}` : ""}`;
}

/** The quality part of the verdict: `quality: 2 findings (answer-leak, tool-crash)`. */
export function qualityVerdictText(q: QualityReport): string {
  if (q.error && !q.sample) return `quality: not played (${q.error})`;
  const counted = q.results.filter((r) => r.counted).map((r) => r.id);
  const waived = q.summary.waived ? `, ${q.summary.waived} waived` : "";
  const stopped = q.error ? `; ${q.error}` : "";
  if (counted.length)
    return `quality: ${plural(counted.length, "finding")} (${counted.join(", ")})${waived}${stopped}`;
  return q.error ? `quality: no finding${waived}, but ${q.error}` : `quality: no finding${waived}`;
}
