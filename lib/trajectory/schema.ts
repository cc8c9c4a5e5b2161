// The trajectory format: one recorded ORS episode (docs/architecture.md "Episodes and trajectories").
// Isomorphic: the store writes it, `GET /api/trajectories/<id>` serves it, export/import use it
// unchanged (one object = JSON export, one object per line = JSONL). Documented in FORMAT.md.
import { z } from "zod";
import { blocksSchema, jsonObjectSchema, toolSpecSchema } from "@/lib/ors/protocol";
import { END_REASONS, SORT_KEYS, TRAJECTORY_FORMAT } from "./model";

export {
  cumulativeRewards,
  END_REASONS,
  SORT_KEYS,
  type SortKey,
  TRAJECTORY_FORMAT,
  taskLabel,
  totalReward,
} from "./model";

export const endReasonSchema = z.enum(END_REASONS);
export type EndReason = z.infer<typeof endReasonSchema>;

export const trajectoryTaskSchema = z.union([
  z.strictObject({ task_spec: jsonObjectSchema }),
  z.strictObject({ split: z.string().min(1), index: z.number().int().nonnegative() }),
]);
export type TrajectoryTask = z.infer<typeof trajectoryTaskSchema>;

/**
 * One SSE frame of a call as the relay saw it; `t` = ms since the call started. The data of
 * `chunk` and `end` frames is kept only as a preview (the result itself is the step's blocks,
 * reward, ...): `size` is then the data's full length in characters.
 */
export const stepEventSchema = z.union([
  z.strictObject({
    t: z.number(),
    kind: z.literal("event"),
    event: z.string(),
    data: z.string(),
    size: z.number().int().nonnegative().optional(),
  }),
  z.strictObject({ t: z.number(), kind: z.literal("comment"), comment: z.string() }),
]);
export type StepEvent = z.infer<typeof stepEventSchema>;

/** How a replayed (fork/replay) step compared with the step it re-ran. */
export const replayMarkSchema = z.strictObject({
  of: z.string(),
  step: z.number().int().positive(),
  differs: z.array(z.enum(["observation", "reward", "finished", "ok", "error", "metadata"])),
});
export type ReplayMark = z.infer<typeof replayMarkSchema>;

/** Tokens a model turn took (the OpenAI usage names). */
export const tokenUsageSchema = z.strictObject({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
});
export type TokenUsage = z.infer<typeof tokenUsageSchema>;

/**
 * Who chose a call, when a policy did (a run, or a model at the controls of a live episode): sent
 * by the caller in the `x-playground-agent` header of the `/call` (lib/runs/agent-header.ts), which
 * the relay does not forward. Calls a person makes have none.
 */
export const stepAgentSchema = z.strictObject({
  /** The policy: `model`, `random`, `replay`, `script`. */
  policy: z.string().min(1).max(32),
  /** The model's id, for a model policy. */
  model: z.string().max(200).optional(),
  /** The policy's turn (1-based) that made this call: several calls of one turn share it. */
  turn: z.number().int().positive(),
  /** The call's id in the model's conversation (its `tool_call_id`). */
  call_id: z.string().min(1).max(200),
  /** What the model said beside its calls (on the first call of its turn only). */
  message: z.string().optional(),
  /** The turn's tokens (on the first call of its turn only, so sums count each turn once). */
  usage: tokenUsageSchema.optional(),
});
export type StepAgent = z.infer<typeof stepAgentSchema>;

/** A run's episode: which run, which task of its split (the dataset index), which repeat (0-based). */
export const runTagSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  task_index: z.number().int().nonnegative(),
  repeat: z.number().int().nonnegative(),
});
export type RunTag = z.infer<typeof runTagSchema>;

/**
 * The client that played an episode, when it said who it is: an MCP client's `clientInfo` (its
 * name and version, e.g. `claude-code` `1.0.0`) for an episode played through the MCP bridge
 * (docs/mcp.md). Sent by the caller in the `x-playground-client` header of the `/create`
 * (lib/relay/annotations.ts), which the relay does not forward.
 */
export const clientTagSchema = z.strictObject({
  name: z.string().min(1).max(200),
  version: z.string().max(100),
});
export type ClientTag = z.infer<typeof clientTagSchema>;

/** Why a policy stopped playing an episode without a tool call, and its last words. */
export const agentEndSchema = z.strictObject({
  /** `no_tool_call` (the model answered without one), `max_turns`, `policy_stop`, ... */
  reason: z.string().min(1).max(64),
  message: z.string().nullable(),
  usage: tokenUsageSchema.optional(),
});
export type AgentEnd = z.infer<typeof agentEndSchema>;

/**
 * Where a step came from when it was not an ordinary call: `replay` — sent again from the episode's
 * protocol log (`exchange`: the seq of the logged call it replays; `edited`: its input was changed
 * first). Sent by the caller in the `x-playground-step` header of the `/call`
 * (lib/relay/annotations.ts), which the relay does not forward.
 */
export const stepOriginSchema = z.strictObject({
  kind: z.literal("replay"),
  exchange: z.number().int().positive(),
  edited: z.boolean(),
});
export type StepOrigin = z.infer<typeof stepOriginSchema>;

export const trajectoryStepSchema = z.strictObject({
  /** 1-based step number within the episode. */
  index: z.number().int().positive(),
  tool: z.string(),
  input: jsonObjectSchema,
  /** The server's task_id of the call (from `event: task_id`), when known. */
  task_id: z.string().nullable(),
  started_at: z.number(),
  ended_at: z.number().nullable(),
  latency_ms: z.number().nullable(),
  /** null while the call is in flight. */
  ok: z.boolean().nullable(),
  error: z.string().nullable(),
  blocks: blocksSchema,
  reward: z.number().nullable(),
  finished: z.boolean(),
  metadata: jsonObjectSchema.nullable(),
  events: z.array(stepEventSchema),
  replay: replayMarkSchema.nullable().optional(),
  /**
   * A call made after the episode had finished (a tool returned `finished: true` earlier): kept,
   * but not part of the episode's total reward nor of its end time.
   */
  after_end: z.boolean().optional(),
  /**
   * The step was larger than the step-size cap (PLAYGROUND_MAX_STEP_BYTES) and was cut to fit:
   * its size before (bytes of JSON) and after, and what was cut. Absent when nothing was cut.
   */
  truncated: z
    .strictObject({
      original_bytes: z.number().int().nonnegative(),
      kept_bytes: z.number().int().nonnegative(),
      /** Text blocks shortened. */
      blocks_cut: z.number().int().positive().optional(),
      /** Blocks left out (images, and every block after the cap was reached). */
      blocks_dropped: z.number().int().positive().optional(),
      /** SSE frames left out of `events`. */
      frames_dropped: z.number().int().positive().optional(),
      metadata_dropped: z.literal(true).optional(),
      error_cut: z.literal(true).optional(),
    })
    .optional(),
  /** Who chose this call, when a policy did (absent for calls a person made). */
  agent: stepAgentSchema.optional(),
  /** A call replayed from the protocol log (absent on every other step). */
  origin: stepOriginSchema.optional(),
});
export type TrajectoryStep = z.infer<typeof trajectoryStepSchema>;

export const trajectoryOriginSchema = z.strictObject({
  /** `review`: the corrected copy of an episode reviewers found the verifier wrong on (docs/review.md). */
  kind: z.enum(["fork", "replay", "import", "review"]),
  from: z.string().nullable(),
  step: z.number().int().nonnegative().nullable().optional(),
});
export type TrajectoryOrigin = z.infer<typeof trajectoryOriginSchema>;

/** A label set as a trajectory carries it with its labels (docs/review.md "Label sets"). */
export const labelSetRefSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  name: z.string().min(1).max(200),
  /** Whether its labels are on episodes or on steps. */
  target: z.enum(["episode", "step"]),
  /** The JSON Schema of a label's value. */
  schema: jsonObjectSchema,
  /** The field that says whether the episode is correct (null: the set has no verdict). */
  verdict: z.string().nullable(),
});
export type LabelSetRef = z.infer<typeof labelSetRefSchema>;

/** One person's label on the episode (`step` null) or on one of its steps, in a label set. */
export const trajectoryLabelSchema = z.strictObject({
  set: labelSetRefSchema,
  step: z.number().int().positive().nullable(),
  reviewer: z.string().min(1).max(100),
  value: jsonObjectSchema,
  created_at: z.number(),
  updated_at: z.number(),
});
export type TrajectoryLabel = z.infer<typeof trajectoryLabelSchema>;

export const trajectorySchema = z.strictObject({
  format: z.literal(TRAJECTORY_FORMAT),
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "id: 1-64 characters of A-Z a-z 0-9 _ -"),
  server: z.string().min(1),
  /** The environment name (null when /create omitted env_name and no prompt named it). */
  env: z.string().nullable(),
  sid: z.string().nullable(),
  /** null when the recorder first saw the session after its /create (e.g. after a restart). */
  task: trajectoryTaskSchema.nullable(),
  prompt: blocksSchema.nullable(),
  steps: z.array(trajectoryStepSchema),
  total_reward: z.number(),
  started_at: z.number(),
  ended_at: z.number().nullable(),
  /** null while the episode is running. */
  end_reason: endReasonSchema.nullable(),
  error: z.string().nullable(),
  origin: trajectoryOriginSchema.nullable().optional(),
  /**
   * Each time the prompt was requested again after the first time (by a client other than the
   * playground: reopening an episode never does): when, and whether the blocks were the same.
   * Environments that build their world in get_prompt may have been reset then.
   */
  reprompts: z.array(z.strictObject({ at: z.number(), same: z.boolean() })).optional(),
  /**
   * Marked golden: a reference episode that `test` replays as a regression test (README "Golden
   * episodes"). Present (true) only on golden trajectories.
   */
  golden: z.boolean().optional(),
  /** Present on a run's episode: the run, the task index and the repeat. */
  run: runTagSchema.optional(),
  /** The client that played it, when it said (an MCP client's name and version); absent otherwise. */
  client: clientTagSchema.optional(),
  /**
   * The tool specs the episode was played with (the session's `/task_tools` or `/tools` answer as
   * the relay saw it), so an export stays true after the environment changes. Absent when unknown.
   */
  tools: z.array(toolSpecSchema).optional(),
  /** How a policy stopped without a tool call (a model's final answer); absent otherwise. */
  agent_end: agentEndSchema.optional(),
  /** People's labels on the episode and its steps (docs/review.md); absent when it has none. */
  labels: z.array(trajectoryLabelSchema).optional(),
});
export type Trajectory = z.infer<typeof trajectorySchema>;

/** A row of `GET /api/trajectories`: the trajectory without prompt and steps. */
export const trajectorySummarySchema = z.strictObject({
  id: z.string(),
  server: z.string(),
  env: z.string().nullable(),
  sid: z.string().nullable(),
  task: trajectoryTaskSchema.nullable(),
  task_label: z.string(),
  num_steps: z.number().int(),
  total_reward: z.number(),
  started_at: z.number(),
  ended_at: z.number().nullable(),
  last_activity_at: z.number(),
  end_reason: endReasonSchema.nullable(),
  error: z.string().nullable(),
  origin: trajectoryOriginSchema.nullable().optional(),
  /** Present (true) only on golden trajectories. */
  golden: z.boolean().optional(),
  /** Present on a run's episode. */
  run: runTagSchema.optional(),
  /** The client that played it, when it said (an MCP client). */
  client: clientTagSchema.optional(),
});
export type TrajectorySummary = z.infer<typeof trajectorySummarySchema>;

/** Filters of the list and export endpoints (query parameters). */
export const trajectoryFilterSchema = z.object({
  server: z.string().optional(),
  env: z.string().optional(),
  task: z.string().optional(),
  end_reason: z.union([endReasonSchema, z.literal("running")]).optional(),
  min_reward: z.coerce.number().optional(),
  max_reward: z.coerce.number().optional(),
  /** `1`/`true`: golden trajectories only; `0`/`false`: the others only. */
  golden: z
    .union([z.boolean(), z.enum(["1", "0", "true", "false"])])
    .transform((v) => v === true || v === "1" || v === "true")
    .optional(),
  q: z.string().optional(),
  /** The episodes of one run (its id). */
  run: z.string().min(1).max(64).optional(),
  sort: z.enum(SORT_KEYS).optional(),
  order: z.enum(["asc", "desc"]).optional(),
  limit: z.coerce.number().int().min(1).max(10_000).optional(),
  offset: z.coerce.number().int().min(0).optional(),
});
export type TrajectoryFilter = z.infer<typeof trajectoryFilterSchema>;

// ---- The protocol log (FORMAT.md "Protocol log"): every request of an episode's session ----

/** One side of a logged exchange: the body as text (cut to a cap), its whole size in bytes. */
export const exchangeSideSchema = z.strictObject({
  body: z.string(),
  size: z.number().int().nonnegative(),
  /** Present (true) when `body` was cut. */
  truncated: z.literal(true).optional(),
});
export type ExchangeSide = z.infer<typeof exchangeSideSchema>;

/** One request of a session through the relay and its answer, as `GET /api/trajectories/<id>/exchanges` lists it. */
export const protocolExchangeSchema = z.strictObject({
  /** 1, 2, ... in the order the exchanges ended (were logged). */
  seq: z.number().int().positive(),
  /** When the request reached the relay (ms since the epoch). */
  at: z.number(),
  /** From then until the answer ended (an SSE answer: its last byte, or the client going away). */
  ms: z.number().nonnegative(),
  method: z.string(),
  /** The ORS path as requested, e.g. `/math/call`. */
  path: z.string(),
  status: z.number().int(),
  request: exchangeSideSchema.extend({
    /** X-Session-ID, Accept, Content-Type, X-Deployment as sent; X-API-Key and X-Secrets masked. */
    headers: z.record(z.string(), z.string()),
  }),
  response: exchangeSideSchema.extend({ contentType: z.string() }),
});
export type ProtocolExchange = z.infer<typeof protocolExchangeSchema>;
/** An exchange before the store numbers it. */
export type NewExchange = Omit<ProtocolExchange, "seq">;

/** A trajectory's protocol log: its exchanges, and how many were left out beyond its caps. */
export interface ExchangeList {
  items: ProtocolExchange[];
  dropped: number;
}

/** The summary of a newly logged exchange on an episode's live feed (bodies are fetched on demand). */
export type ExchangeSummary = Pick<ProtocolExchange, "seq" | "at" | "method" | "path" | "status" | "ms">;

/** What a fork at step N answers: the new live session, its trajectory, and how the replay went. */
export interface ForkResult {
  server: string;
  env: string;
  sid: string;
  trajectory_id: string;
  step: number;
  marks: ReplayMark[];
  differing: number[];
}
