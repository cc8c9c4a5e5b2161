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

/** What the verdict line of a part that plays episodes (quality, probe) reads. */
export interface PlayedPart {
  error: string | null;
  sample: unknown;
  results: readonly { id: string; counted: boolean }[];
  summary: { waived: number };
}

/** A played part's verdict, named `name`: `quality: 2 findings (answer-leak, tool-crash)`. */
export function partVerdictText(name: string, p: PlayedPart): string {
  if (p.error && !p.sample) return `${name}: not played (${p.error})`;
  const counted = p.results.filter((r) => r.counted).map((r) => r.id);
  const waived = p.summary.waived ? `, ${p.summary.waived} waived` : "";
  const stopped = p.error ? `; ${p.error}` : "";
  if (counted.length)
    return `${name}: ${plural(counted.length, "finding")} (${counted.join(", ")})${waived}${stopped}`;
  return p.error ? `${name}: no finding${waived}, but ${p.error}` : `${name}: no finding${waived}`;
}

/** The quality part of the verdict: `quality: 2 findings (answer-leak, tool-crash)`. */
export function qualityVerdictText(q: QualityReport): string {
  return partVerdictText("quality", q);
}
