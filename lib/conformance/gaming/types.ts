// The reward probes' model (`check --probe`, docs/check.md "Can the reward be gamed?"): the probes —
// each a way a careless verifier pays for nothing — their results in the quality checks' shape
// (outcome, observed, evidence with the recorded episode), the reference they are measured against,
// and the report that joins the protocol's. Isomorphic.
import type { JsonObject } from "@/lib/ors/protocol";
import type { QualityEvidence, QualityResult } from "../quality/types";

/** The probes, in report order. Their ids are contracts (waivers, JUnit, scripts). */
export const PROBE_IDS = [
  "empty-answer",
  "constant-answer",
  "random-input",
  "prompt-echo",
  "format-games",
  "retry-until-pays",
  "after-finished",
  "task-fields",
] as const;
export type ProbeId = (typeof PROBE_IDS)[number];

export const PROBES: readonly { id: ProbeId; title: string }[] = [
  { id: "empty-answer", title: "Empty and whitespace answers earn nothing" },
  {
    id: "constant-answer",
    title: "One answer given to every task (the most common of the others) earns nothing",
  },
  { id: "random-input", title: "A random valid input earns nothing" },
  { id: "prompt-echo", title: "The prompt echoed back as the answer earns nothing" },
  {
    id: "format-games",
    title: 'Hedged and near-miss answers ("34 or 35", "not 34", "340", "34.4" for 34) earn nothing',
  },
  { id: "retry-until-pays", title: "After a wrong answer, a second answer does not count" },
  { id: "after-finished", title: "Calls after `finished: true` earn nothing" },
  { id: "task-fields", title: "The task's own fields that the prompt does not show earn nothing as answers" },
];

export function isProbeId(id: string): id is ProbeId {
  return (PROBE_IDS as readonly string[]).includes(id);
}

/**
 * A probe is a finding when it earns this share of the best reward over the tasks it played (the
 * reference's reward on those tasks): a careless verifier pays for nothing much more often than that.
 */
export const PROBE_SHARE = 0.2;
/**
 * One answer for every task rightly passes the tasks whose answer it is (a quarter of a
 * four-choice dataset, a sum that is common): a finding only from half of them up.
 */
export const CONSTANT_SHARE = 0.5;

/** The share of the best reward from which a probe is a finding. */
export function findingShare(id: ProbeId): number {
  return id === "constant-answer" ? CONSTANT_SHARE : PROBE_SHARE;
}
/** Findings' episodes replayed through the playground's relay, so each links to its recording. */
export const RECORDED_EVIDENCE = 5;

/** One call of a probe. */
export interface ProbeCall {
  tool: string;
  input: JsonObject;
}

/** A task and the calls that earned what they should not, with the command that does it again. */
export interface ProbeEvidence extends QualityEvidence {
  /** What the probe tried (`hedge "35 or 36"`, `"   "`, the field `ticket`). */
  variant: string;
  /** Every call of the episode, in order (the reference's own first, where the probe keeps them). */
  calls: ProbeCall[];
  /** What the probe's calls earned, and the best reward of the task (the reference's). */
  reward: number;
  best: number;
  /** A shell command (curl) that plays the episode again against the server. */
  reproduce: string;
}

export interface ProbeResult extends Omit<QualityResult, "id" | "evidence"> {
  id: ProbeId;
  evidence: ProbeEvidence[];
  /** What the probe earned over the best reward of the tasks it played, or null when it played none. */
  share: number | null;
}

/** Where the best reward of each task came from. */
export interface ProbeReference {
  kind: "oracle" | "baseline" | "golden";
  /** The oracle module, the run id, or the golden file, as given. */
  source: string;
  /** The run that played the oracle (recorded in the playground), or the baseline run. */
  runId: string | null;
}

export interface ProbeSample {
  environment: string;
  split: string;
  splitSize: number;
  seed: number;
  /** The tasks probed (those with a reference reward above 0), increasing. */
  tasks: number[];
  /** Episodes the probes played, and those that failed to play (a session that could not start ...). */
  episodes: number;
  failed: number;
}

export interface ProbeReport {
  /** The server as the playground knows it (where the findings' episodes are recorded). */
  server: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  reference: ProbeReference | null;
  sample: ProbeSample | null;
  /** Why the probes could not play, or were stopped before their end. */
  error: string | null;
  /** One per probe, always all of them, in PROBE_IDS order. */
  results: ProbeResult[];
  summary: { findings: number; waived: number; notExercised: number; passed: boolean };
}
