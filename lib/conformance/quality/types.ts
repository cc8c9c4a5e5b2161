// The quality checks' result model (isomorphic; docs/check.md "Environment quality"): the six
// findings that make an environment useless for training, what each found with the tasks, calls and
// recorded trajectories that show it, what was sampled, and the report that joins the protocol's.

import type { JsonObject } from "@/lib/ors/protocol";
import { trajectoryHref } from "@/lib/routes";

/** The quality checks, in report order. Their ids are contracts (waivers, JUnit, scripts). */
export const QUALITY_CHECK_IDS = [
  "answer-leak",
  "nondeterministic",
  "trivial-reward",
  "oracle-below-max",
  "no-reward",
  "tool-crash",
] as const;
export type QualityCheckId = (typeof QUALITY_CHECK_IDS)[number];

export interface QualityCheckInfo {
  id: QualityCheckId;
  /** What a sound environment does, in a sentence. */
  title: string;
}

export const QUALITY_CHECKS: readonly QualityCheckInfo[] = [
  {
    id: "answer-leak",
    title: "No task field named answer, solution, target, label or ground_truth has its value in the prompt",
  },
  {
    id: "nondeterministic",
    title: "The same actions on the same task give the same outputs and rewards",
  },
  { id: "trivial-reward", title: "Random valid inputs do not reach the best reward" },
  { id: "oracle-below-max", title: "The oracle (--oracle) reaches the best reward on every task" },
  { id: "no-reward", title: "Some tool gives a reward" },
  { id: "tool-crash", title: "Valid inputs never make a tool fail with a server error" },
];

/**
 * How a quality check came out: `finding` (the environment has the flaw; counts unless waived),
 * `pass`, or `not-exercised` (what was played cannot tell, and why).
 */
export const QUALITY_OUTCOMES = ["finding", "not-exercised", "pass"] as const;
export type QualityOutcome = (typeof QUALITY_OUTCOMES)[number];

/** A recorded trajectory in the playground: its id, the step shown (null: the episode, its prompt) and its page. */
export interface TrajectoryRef {
  id: string;
  step: number | null;
  /** The page in the playground's UI, from its root: `/trajectories/<id>?step=<n>`. */
  href: string;
}

/** One task and call that show a finding (or, for a pass, nothing: passes carry no evidence). */
export interface QualityEvidence {
  /** The task's index in the split. */
  task: number;
  /** What was seen, in a line. */
  what: string;
  /** The call that shows it, when one does. */
  call: { tool: string; input: JsonObject } | null;
  /** The recorded episode that shows it. */
  trajectory: TrajectoryRef | null;
  /** The episode it differs from (the replay, for `nondeterministic`). */
  other: TrajectoryRef | null;
  /** Both side by side (`/trajectories/compare?a=..&b=..`), when there are two. */
  compareHref: string | null;
}

export interface QualityResult extends QualityCheckInfo {
  outcome: QualityOutcome;
  /** What was seen, in a sentence or two (counts, shares, why not exercised). */
  observed: string;
  /** The tasks and calls that show a finding, at most MAX_EVIDENCE of them. */
  evidence: QualityEvidence[];
  /** How many there were in all (more than `evidence.length` when cut). */
  evidenceTotal: number;
  /** Waived (`--allow ID`): reported, never counted. */
  waived: boolean;
  /** Counts toward the exit code: a finding not waived. */
  counted: boolean;
}

/** Where the checks are while they play (the UI's progress, the CLI's progress lines). */
export interface QualityProgress {
  phase: "sampling" | "playing" | "replaying" | "reading";
  /** Episodes ended so far in this phase, of `total`. */
  done: number;
  total: number;
}

/** Tasks sampled by default: a few dozen, so the checks stay under a minute on a typical environment. */
export const DEFAULT_QUALITY_TASKS = 24;
export const MAX_QUALITY_TASKS = 200;
export const DEFAULT_QUALITY_SEED = 1;
/** The time limit of one episode, and of the whole play (episodes still playing then are cancelled). */
export const QUALITY_EPISODE_TIMEOUT_MS = 60_000;
export const DEFAULT_QUALITY_MAX_TIME_MS = 5 * 60_000;

/** Evidence kept per finding (the count says how many there were). */
export const MAX_EVIDENCE = 20;

/** What each policy played: `random` inputs, the `oracle`, and the replays of both. */
export const PLAY_ROLES = ["random", "random-replay", "oracle", "oracle-replay"] as const;
export type PlayRole = (typeof PLAY_ROLES)[number];

export interface QualityPlay {
  role: PlayRole;
  /** The run that played them (a normal run of the playground, its episodes recorded). */
  runId: string;
  /** The policy's words, e.g. `random (seed 1)`, `script oracle.ts`. */
  label: string;
  episodes: number;
  /** Played to their end (the others errored or were stopped). */
  done: number;
  errored: number;
}

/** What the checks sampled and played. */
export interface QualitySample {
  environment: string;
  split: string;
  /** The split's size. */
  splitSize: number;
  /** Tasks asked for (`--tasks`), and the seed of the sample and of the random inputs. */
  requested: number;
  seed: number;
  /** The sampled tasks' indexes, increasing. */
  tasks: number[];
  /** The oracle module as given, or null. */
  oracle: string | null;
  plays: QualityPlay[];
  /** Tool calls made in all, and per tool of the environment (0: never called). */
  calls: number;
  tools: { name: string; calls: number }[];
}

export interface QualityReport {
  /** The server as the playground knows it (`local`, `127-0-0-1-8080`): where the episodes are recorded. */
  server: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** Null when nothing could be played (`error` says why). */
  sample: QualitySample | null;
  /** Why the checks could not play (an unknown environment or split, an oracle that fails to load ...). */
  error: string | null;
  /** The best episode reward seen (any policy), or null when none was. */
  bestReward: number | null;
  /** One per check, always all of them, in QUALITY_CHECK_IDS order. */
  results: QualityResult[];
  summary: {
    findings: number;
    waived: number;
    notExercised: number;
    /** No finding counts (and the checks could play). */
    passed: boolean;
  };
}

export function isQualityCheckId(id: string): id is QualityCheckId {
  return (QUALITY_CHECK_IDS as readonly string[]).includes(id);
}

/** The info of a check by id. */
export function qualityCheckInfo(id: QualityCheckId): QualityCheckInfo {
  return QUALITY_CHECKS.find((c) => c.id === id)!;
}

export function trajectoryRef(id: string, step: number | null = null): TrajectoryRef {
  return { id, step, href: trajectoryHref(id, step) };
}
