// The result model of the ORS conformance check (isomorphic): outcomes, references into the ORS
// specification, one result per check, and the report (`ors-conformance/1`, documented in README.md).

/**
 * How a check came out, worst first:
 * - `breaks-reference-client`: the reference Python client (`ors.client`) fails or silently gets
 *   something else than the server meant (an exception, lost characters, a wrong sid);
 * - `error`: the server failed where it should have answered (5xx, no answer, a time limit);
 * - `differs-from-spec`: the specification says otherwise, but the reference client copes;
 * - `not-exercised`: the behaviour could not be observed on this server (and why);
 * - `pass`.
 */
export const CHECK_OUTCOMES = [
  "breaks-reference-client",
  "error",
  "differs-from-spec",
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

export const CHECK_GROUPS = ["discovery", "sessions", "calls", "errors", "isolation", "limits"] as const;
export type CheckGroup = (typeof CHECK_GROUPS)[number];

export const GROUP_TITLES: Record<CheckGroup, string> = {
  discovery: "Discovery",
  sessions: "Sessions",
  calls: "Tool calls",
  errors: "Errors",
  isolation: "Session isolation",
  limits: "Limits",
};

export interface CheckInfo {
  /** Stable id, e.g. `call-chunking`. */
  id: string;
  group: CheckGroup;
  /** What the check expects, in a sentence. */
  title: string;
  spec: SpecRef;
}

export interface CheckResult extends CheckInfo {
  outcome: CheckOutcome;
  /** What was observed, short, with the HTTP status, bytes or frames that prove it. */
  observed: string;
  /** Time the check took, in ms. */
  durationMs: number;
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
    /** No `breaks-reference-client` and no `error` (the CLI exits 0). */
    ok: boolean;
    /** `ok`, and nothing differs from the specification either. */
    clean: boolean;
  };
  /** One result per check, in catalogue order (every check is always present). */
  results: CheckResult[];
}

export function emptyCounts(): OutcomeCounts {
  return {
    "breaks-reference-client": 0,
    error: 0,
    "differs-from-spec": 0,
    "not-exercised": 0,
    pass: 0,
  };
}

export function countOutcomes(results: readonly CheckResult[]): OutcomeCounts {
  const counts = emptyCounts();
  for (const r of results) counts[r.outcome]++;
  return counts;
}
