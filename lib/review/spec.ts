// What the review API is asked (docs/review.md "HTTP API"): the bodies of label sets, labels,
// queues, share links and a player's requests, as zod schemas the API, the UI and tests share.
// JSON in camelCase. Isomorphic.
import { z } from "zod";
import { jsonObjectSchema } from "@/lib/ors/protocol";
import { taskSelectionSchema } from "@/lib/runs/spec";
import { LABEL_TARGETS } from "@/lib/store/types";

/** A reviewer's or a player's name: what people call themselves, on one line. */
export const personNameSchema = z
  .string()
  .trim()
  .min(1, "a name is needed")
  .max(100)
  .regex(/^[^\p{Cc}]+$/u, "a name is one line of text");

/** The largest label set schema accepted, as JSON text (a label set is a small form). */
export const MAX_LABEL_SCHEMA_CHARS = 32 * 1024;
/** The largest label value accepted, as JSON text. */
export const MAX_LABEL_VALUE_CHARS = 64 * 1024;

const id = z.string().min(1).max(64);

export const labelSetRequestSchema = z.strictObject({
  server: z.string().min(1).max(64),
  env: z.string().min(1).max(256),
  name: z.string().trim().min(1).max(200),
  /** Labels on whole episodes (default) or on their steps. */
  target: z.enum(LABEL_TARGETS).optional(),
  /** The JSON Schema of a label: an object with properties (lib/review/label-sets.ts checks it). */
  schema: jsonObjectSchema,
  /** The verdict field (default: `correct`, else `reward_should_be`, else the first boolean). */
  verdict: z.string().min(1).max(200).nullable().optional(),
});
export type LabelSetRequest = z.infer<typeof labelSetRequestSchema>;

export const labelRequestSchema = z.strictObject({
  labelSet: id,
  trajectoryId: id,
  /** A step's index (1-based), or null/absent for the whole episode. */
  step: z.number().int().positive().nullable().optional(),
  reviewer: personNameSchema,
  value: jsonObjectSchema,
});
export type LabelRequest = z.infer<typeof labelRequestSchema>;

export const queueRequestSchema = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  labelSet: id,
  /** The run whose episodes are sampled. */
  run: id,
  /** How many of its episodes (default 40; all when it has fewer). */
  size: z.number().int().min(1).max(10_000).optional(),
  /** Stratified by reward (every reward level represented, in proportion). */
  stratified: z.boolean().optional(),
  seed: z.number().int().optional(),
  reviewers: z.array(personNameSchema).min(1).max(100),
  /** How many reviewers see each episode (default 1; 2 or more gives Cohen's κ). */
  perEpisode: z.number().int().min(1).max(100).optional(),
  /** Hide rewards from a reviewer until they have labelled the episode (default true). */
  blind: z.boolean().optional(),
  /** The verifier's success threshold (default: the run's). */
  successAt: z.number().finite().optional(),
});
export type QueueRequest = z.infer<typeof queueRequestSchema>;

export const shareRequestSchema = z.strictObject({
  server: z.string().min(1).max(64),
  env: z.string().min(1).max(256),
  split: z.string().min(1).max(256),
  /** Which tasks, as runs select them (default all; at most 1000). */
  tasks: taskSelectionSchema.optional(),
  /** When the link stops working (ms since the epoch), or null for never (until revoked). */
  expiresAt: z.number().int().positive().nullable().optional(),
  note: z.string().trim().max(500).nullable().optional(),
});
export type ShareRequest = z.infer<typeof shareRequestSchema>;

/** A player's request on a share link: who is playing. */
export const playerRequestSchema = z.strictObject({ player: personNameSchema });

/** The most tasks one share link plays. */
export const MAX_SHARE_TASKS = 1000;
