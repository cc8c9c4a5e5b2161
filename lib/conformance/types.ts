// The result model of the ORS conformance check (isomorphic): outcomes, references into the ORS
// specification, one result per check with whose finding it is, and the report
// (`ors-conformance/1`, documented in docs/check.md).
import type { ProbeReport } from "./gaming/types";
import type { QualityReport } from "./quality/types";

/**
 * How a check came out, worst first:
 * - `breaks-reference-client`: the reference Python client (`ors.client`) fails or silently gets
 *   something else than the server meant (an exception, lost characters, a wrong sid);
 * - `error`: the server failed where it should have answered (5xx, no answer, a time limit);
 * - `differs-from-spec`: the specification says otherwise, but the reference client copes;
 * - `breaks-openreward-client`: the OpenReward platform's client (`openreward`) needs something the
 *   spec does not ask for (paths without the environment, `env_name` in /task), and fails here;
 * - `not-exercised`: the behaviour could not be observed on this server (and why);
 * - `pass`.
 */
export const CHECK_OUTCOMES = [
  "breaks-reference-client",
  "error",
  "differs-from-spec",
  "breaks-openreward-client",
  "not-exercised",
  "pass",
] as const;
export type CheckOutcome = (typeof CHECK_OUTCOMES)[number];

/** Severity: lower is worse (the order of CHECK_OUTCOMES). */
export function outcomeRank(outcome: CheckOutcome): number {
  return CHECK_OUTCOMES.indexOf(outcome);
}

/** The pages of the ORS specification (https://openrewardstandard.io/specification/...). */
export type SpecFile = "ors-http-api.txt" | "ors-sse.txt" | "ors-sessions-episodes.txt";

/** A section of the specification: its page and the section's title as written there. */
export interface SpecRef {
  file: SpecFile;
  section: string;
}

export const CHECK_GROUPS = [
  "discovery",
  "sessions",
  "calls",
  "errors",
  "isolation",
  "limits",
  "openreward",
] as const;
export type CheckGroup = (typeof CHECK_GROUPS)[number];

export const GROUP_TITLES: Record<CheckGroup, string> = {
  discovery: "Discovery",
  sessions: "Sessions",
  calls: "Tool calls",
  errors: "Errors",
  isolation: "Session isolation",
  limits: "Limits",
  openreward: "What the OpenReward client needs",
};

export interface CheckInfo {
  /** Stable id, e.g. `call-chunking`. */
  id: string;
  group: CheckGroup;
  /** What the check expects, in a sentence. */
  title: string;
  spec: SpecRef;
}

/** Whose finding it is: the environment's author, or the server framework under it. */
export type FindingOwner = "author" | "framework";

export interface CheckResult extends CheckInfo {
  outcome: CheckOutcome;
  /** What was observed, short, with the HTTP status, bytes or frames that prove it. */
  observed: string;
  /** Time the check took, in ms. */
  durationMs: number;
  /**
   * Whose finding this is; null for a pass or a check not exercised. Decided once the whole run is
   * seen (the framework is recognised from several checks), so null in results streamed before it.
   */
  owner: FindingOwner | null;
  /** The known deviations of the recognised framework this finding is (ids of ./frameworks.ts). */
  deviations: string[];
  /** Waived by the policy (`--allow ID`, `--allow-file FILE`): reported, never counted. */
  waived: boolean;
  /** Counts toward the exit code under the report's policy (false in streamed results). */
  counted: boolean;
}

/** What counts toward the exit code. */
export interface CheckPolicy {
  /** Count every finding, the framework's and those below the default bar too. */
  strict: boolean;
  /** Check ids whose findings are waived. */
  allow: string[];
}

/** The server framework a run recognised, and the behaviours it was recognised by. */
export interface RecognisedFramework {
  id: string;
  /** e.g. `reference Python SDK`. */
  name: string;
  /** One line per behaviour seen that is the framework's own. */
  evidence: string[];
}

export interface CheckTask {
  split: string;
  index: number;
}

export interface CheckTool {
  name: string;
  input: Record<string, unknown>;
}

/** Counts per outcome. */
export type OutcomeCounts = Record<CheckOutcome, number>;

export interface ConformanceReport {
  format: "ors-conformance/1";
  /** The base URL checked. */
  baseUrl: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** What the session checks ran on (chosen automatically unless given). */
  target: {
    environment: string | null;
    task: CheckTask | null;
    tool: CheckTool | null;
  };
  summary: {
    total: number;
    counts: OutcomeCounts;
    /** No `breaks-reference-client` and no `error`, whoever's they are. */
    ok: boolean;
    /** `ok`, and nothing differs from the specification either. */
    clean: boolean;
    /** Findings (results that are neither pass nor not exercised) by owner, waived ones included. */
    owners: Record<FindingOwner, number>;
    /** Findings waived by the policy. */
    waived: number;
    /** No finding counts under the policy (the quality checks' included, when run): the CLI exits 0. */
    passed: boolean;
  };
  /** The server framework recognised under the environment, or null. */
  framework: RecognisedFramework | null;
  /** What counted toward `summary.passed`. */
  policy: CheckPolicy;
  /** One result per check, in catalogue order (every check is always present). */
  results: CheckResult[];
  /** The environment quality checks (`check --quality`), or null when not asked for. */
  quality: QualityReport | null;
  /** The reward probes (`check --probe`), or null when not asked for. */
  probe: ProbeReport | null;
}

export function emptyCounts(): OutcomeCounts {
  return {
    "breaks-reference-client": 0,
    error: 0,
    "differs-from-spec": 0,
    "breaks-openreward-client": 0,
    "not-exercised": 0,
    pass: 0,
  };
}

export function countOutcomes(results: readonly CheckResult[]): OutcomeCounts {
  const counts = emptyCounts();
  for (const r of results) counts[r.outcome]++;
  return counts;
}

/** Whether an outcome is a finding (something to look at), not a pass or a check not exercised. */
export function isFinding(outcome: CheckOutcome): boolean {
  return outcome !== "pass" && outcome !== "not-exercised";
}
