// What a run is asked (docs/runs.md "HTTP API"): the body of `POST /api/runs`, its policy, and the
// task selection — zod schemas shared by the API, the CLI and the UI. JSON in camelCase. Isomorphic.
import { z } from "zod";

/** The most turns a policy may play in one episode. */
export const MAX_TURNS_LIMIT = 1000;

const maxTurns = z.number().int().min(1).max(MAX_TURNS_LIMIT).optional();

export const modelPolicySchema = z.strictObject({
  kind: z.literal("model"),
  /** A configured endpoint's name (PLAYGROUND_MODELS). */
  endpoint: z.string().min(1).max(32),
  model: z.string().min(1).max(200),
  maxTurns,
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().min(1).max(1_000_000).optional(),
  system: z.string().max(20_000).optional(),
  stream: z.boolean().optional(),
  /** Keep `$defs`/`$ref` in tool schemas (default: inlined). */
  keepRefs: z.boolean().optional(),
});

export const randomPolicySchema = z.strictObject({
  kind: z.literal("random"),
  seed: z.number().int().optional(),
  maxTurns,
});

export const replayPolicySchema = z
  .strictObject({
    kind: z.literal("replay"),
    /** A recorded run whose episodes are replayed, task by task and repeat by repeat. */
    run: z.string().min(1).max(64).optional(),
    /** Or one trajectory whose actions are replayed. */
    trajectory: z.string().min(1).max(64).optional(),
    maxTurns,
  })
  .refine((p) => (p.run === undefined) !== (p.trajectory === undefined), {
    message: "give the run to replay (run) or one trajectory (trajectory), not both",
  });

export const scriptPolicySchema = z.strictObject({
  kind: z.literal("script"),
  /** The module's path on the app's machine (resolved against the app's folder). */
  module: z.string().min(1).max(4096),
  maxTurns,
});

export const policySpecSchema = z.discriminatedUnion("kind", [
  modelPolicySchema,
  randomPolicySchema,
  replayPolicySchema,
  scriptPolicySchema,
]);
export type PolicySpec = z.infer<typeof policySpecSchema>;

/**
 * A person playing through a share link (`/play/<token>`, docs/review.md "Share links"): their
 * episodes are a run with this policy, recorded as they play. Not something `POST /api/runs`
 * starts, nor the executor plays: the share link's player does.
 */
export const humanPolicySchema = z.strictObject({
  kind: z.literal("human"),
  /** The name the player chose. */
  player: z.string().min(1).max(100),
  /** The share link they play (its token). */
  share: z.string().min(1).max(200),
});
export type HumanPolicy = z.infer<typeof humanPolicySchema>;

/**
 * The CLI's model policy may name an endpoint by URL (`--model-url`) instead: stored with the run
 * (so it can be resumed) with the name of the variable holding the key, never the key.
 */
export type CliModelPolicy = Omit<z.infer<typeof modelPolicySchema>, "endpoint"> & {
  endpoint: "cli";
  baseUrl: string;
  apiKeyEnv: string | null;
};
export type RunPolicy = PolicySpec | CliModelPolicy | HumanPolicy;

/**
 * Which tasks of the split: `"all"`, a range `"20-59"` (both ends included), a list (`"1,5,9"`,
 * `"0-9,20-29"` or `[1, 5, 9]`), or a seeded sample of n (`{sample: 50, seed: 7}`, `"sample:50:7"`).
 */
export const taskSelectionSchema = z.union([
  z.string().trim().min(1).max(100_000),
  z.array(z.number().int().nonnegative()).min(1).max(1_000_000),
  z.strictObject({ sample: z.number().int().positive(), seed: z.number().int().optional() }),
]);
export type TaskSelection = z.infer<typeof taskSelectionSchema>;

export const DEFAULT_EPISODE_TIMEOUT_MS = 10 * 60_000;
/** Attempts an episode gets at most when infrastructure fails under it (docs/runs.md "Outcomes"). */
export const DEFAULT_MAX_ATTEMPTS = 3;
export const MAX_ATTEMPTS_LIMIT = 20;

export const runRequestSchema = z.strictObject({
  /** A server the playground knows (`local`, a configured or added server). */
  server: z.string().min(1).max(64),
  env: z.string().min(1).max(256),
  split: z.string().min(1).max(256),
  tasks: taskSelectionSchema.optional(),
  repeats: z.number().int().min(1).max(100).optional(),
  concurrency: z.number().int().min(1).max(256).optional(),
  /** An episode succeeds when it finished with a reward at least this (default 1). */
  successAt: z.number().finite().optional(),
  /** The time limit of one episode (default 10 minutes). */
  timeoutMs: z
    .number()
    .int()
    .min(100)
    .max(24 * 3_600_000)
    .optional(),
  policy: policySpecSchema,
  /** Attempts per episode when infrastructure fails (env_error, model_error, timeout); default 3. */
  maxAttempts: z.number().int().min(1).max(MAX_ATTEMPTS_LIMIT).optional(),
  /** Labels to filter runs by (`quality` marks the quality checks' runs). */
  tags: z
    .array(z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, "a tag is 1-32 characters of a-z, 0-9, _ and -"))
    .max(8)
    .optional(),
});
export type RunRequest = z.infer<typeof runRequestSchema>;

/** A run's settings as stored with it (RunRecord.config). */
export interface RunConfig {
  tasks: TaskSelection;
  concurrency: number;
  successAt: number;
  timeoutMs: number;
  /** Attempts per episode (absent in runs stored before attempts existed: one). */
  maxAttempts?: number;
  policy: RunPolicy;
  /** What the policy calls itself (`model gpt-4o-mini at local-vllm`). */
  policyLabel: string;
}

/** The default turn limit of each policy (a replay plays what was recorded, up to the limit). */
export function defaultMaxTurns(policy: RunPolicy): number {
  if ("maxTurns" in policy && policy.maxTurns) return policy.maxTurns;
  switch (policy.kind) {
    case "model":
      return 30;
    case "random":
      return 10;
    case "script":
      return 100;
    case "replay":
    case "human":
      return MAX_TURNS_LIMIT;
  }
}
