// The review tables' rows (label sets, labels, queues, share links) and how they read, for both
// stores (./sqlite/review.ts, ./postgres/review.ts keep the same columns), and the labels a
// trajectory carries in the export format.
import "server-only";
import { randomBytes } from "node:crypto";
import type { JsonObject } from "@/lib/ors/protocol";
import type { LabelSetRef, Trajectory, TrajectoryLabel } from "@/lib/trajectory/schema";
import type { NewLabelSet, NewReviewQueue, NewShareLink } from "./review-types";
import type {
  Label,
  LabelFilter,
  LabelSet,
  LabelTarget,
  QueueItem,
  QueueProgress,
  ReviewQueue,
  ShareLink,
  SharePlayer,
} from "./types";

export function newLabelSetId(): string {
  return `l${randomBytes(8).toString("base64url")}`;
}

export function newQueueId(): string {
  return `q${randomBytes(8).toString("base64url")}`;
}

/** A label on the episode itself is stored at step 0 (a primary key has no nulls). */
export const EPISODE_STEP = 0;

export interface LabelSetRow {
  id: string;
  server: string;
  env: string;
  name: string;
  target: string;
  schema_json: string;
  verdict: string | null;
  created_at: number;
}

export interface LabelRow {
  label_set_id: string;
  trajectory_id: string;
  step: number;
  reviewer: string;
  value_json: string;
  created_at: number;
  updated_at: number;
}

export interface QueueRow {
  id: string;
  name: string;
  label_set_id: string;
  run_id: string | null;
  blind: number;
  success_at: number;
  reviewers_json: string;
  /** COUNT reads as a number in SQLite, as text (a bigint) in PostgreSQL. */
  size: number | string;
  created_at: number;
}

export interface ShareRow {
  token: string;
  server: string;
  env: string;
  split: string;
  tasks_json: string;
  note: string | null;
  expires_at: number | null;
  revoked_at: number | null;
  created_at: number;
}

export interface PlayerRow {
  token: string;
  player: string;
  run_id: string;
  created_at: number;
}

/** A label set's own fields, as a trajectory carries them with its labels. */
function setRefOf(
  r: Pick<LabelSetRow, "name" | "target" | "schema_json" | "verdict">,
  id: string,
): LabelSetRef {
  return {
    id,
    name: r.name,
    target: r.target as LabelTarget,
    schema: JSON.parse(r.schema_json) as JsonObject,
    verdict: r.verdict,
  };
}

export function toLabelSet(r: LabelSetRow): LabelSet {
  return { ...setRefOf(r, r.id), server: r.server, env: r.env, createdAt: Number(r.created_at) };
}

export function toLabel(r: LabelRow): Label {
  return {
    labelSet: r.label_set_id,
    trajectoryId: r.trajectory_id,
    step: r.step === EPISODE_STEP ? null : r.step,
    reviewer: r.reviewer,
    value: JSON.parse(r.value_json) as JsonObject,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

export function toQueue(r: QueueRow): ReviewQueue {
  return {
    id: r.id,
    name: r.name,
    labelSet: r.label_set_id,
    runId: r.run_id,
    blind: !!r.blind,
    successAt: Number(r.success_at),
    reviewers: JSON.parse(r.reviewers_json) as string[],
    size: Number(r.size),
    createdAt: Number(r.created_at),
  };
}

export function toShare(r: ShareRow): ShareLink {
  return {
    token: r.token,
    server: r.server,
    env: r.env,
    split: r.split,
    tasks: JSON.parse(r.tasks_json) as number[],
    note: r.note,
    expiresAt: r.expires_at === null ? null : Number(r.expires_at),
    revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
    createdAt: Number(r.created_at),
  };
}

export function toPlayer(r: PlayerRow): SharePlayer {
  return { token: r.token, player: r.player, runId: r.run_id, createdAt: Number(r.created_at) };
}

/** The reviewers of a queue in the order first assigned. */
export function reviewersOf(items: readonly { reviewers: readonly string[] }[]): string[] {
  return [...new Set(items.flatMap((i) => i.reviewers))];
}

/** A label with its set, as a trajectory carries it (FORMAT.md "Labels"). */
export function toTrajectoryLabel(r: LabelRow & LabelSetRow): TrajectoryLabel {
  const { step, reviewer, value, createdAt, updatedAt } = toLabel(r);
  return {
    set: setRefOf(r, r.label_set_id),
    step,
    reviewer,
    value,
    created_at: createdAt,
    updated_at: updatedAt,
  };
}

/** The query of a trajectory's labels with their sets (both dialects: `?`/`$1` given). */
export function trajectoryLabelsSql(param: string): string {
  return `SELECT l.*, s.name, s.target, s.schema_json, s.verdict FROM labels l
    JOIN label_sets s ON s.id = l.label_set_id
    WHERE l.trajectory_id = ${param} ORDER BY l.step, s.created_at, s.id, l.reviewer`;
}

/**
 * Optional equality filters as a WHERE clause (both dialects, `bind` writing the parameters): a
 * field of `f` left undefined filters nothing; `columns` names each field's column.
 */
export function equalsWhere<F extends object>(
  f: F,
  columns: { [K in keyof F]?: string },
  bind: (v: unknown) => string,
): string {
  const clauses = (Object.entries(columns) as [keyof F, string][])
    .filter(([k]) => f[k] !== undefined)
    .map(([k, col]) => `${col} = ${bind(f[k])}`);
  return clauses.length ? `WHERE ${clauses.join(" AND ")}` : "";
}

/** The WHERE clause of a label filter (both dialects): a queue's labels are those of its set on its trajectories. */
export function labelsWhere(f: LabelFilter, bind: (v: unknown) => string): string {
  const where = equalsWhere(
    f,
    { labelSet: "label_set_id", trajectoryId: "trajectory_id", reviewer: "reviewer" },
    bind,
  );
  if (f.queue === undefined) return where;
  const queue = [
    `label_set_id = (SELECT label_set_id FROM review_queues WHERE id = ${bind(f.queue)})`,
    `trajectory_id IN (SELECT trajectory_id FROM review_items WHERE queue_id = ${bind(f.queue)})`,
  ].join(" AND ");
  return where ? `${where} AND ${queue}` : `WHERE ${queue}`;
}

/** The columns the lists of label sets and share links filter on (their environment). */
export const ENV_FILTERS = { server: "server", env: "env" } as const;
/** The columns the list of review queues filters on (QUEUE_SELECT's alias `q`). */
export const QUEUE_FILTERS = { runId: "q.run_id", labelSet: "q.label_set_id" } as const;

/** A queue's row with its size (the positions it assigns), read by `toQueue` (both dialects). */
export const QUEUE_SELECT = `SELECT q.*, (SELECT COUNT(DISTINCT position) FROM review_items i WHERE i.queue_id = q.id) AS size
  FROM review_queues q`;

/**
 * The query of a queue's assignments with whether each is labelled, by position then reviewer
 * (both dialects: the queue's and the reviewer's parameters given, a null reviewer for all; `collate`
 * orders reviewers by code point in PostgreSQL, as SQLite does by default).
 */
export function queueItemsSql(queue: string, reviewer: string, collate = ""): string {
  return `SELECT i.position, i.trajectory_id, i.reviewer,
      EXISTS (SELECT 1 FROM labels l WHERE l.label_set_id = q.label_set_id
        AND l.trajectory_id = i.trajectory_id AND l.reviewer = i.reviewer) AS labelled
    FROM review_items i JOIN review_queues q ON q.id = i.queue_id
    WHERE i.queue_id = ${queue} AND (${reviewer} IS NULL OR i.reviewer = ${reviewer})
    ORDER BY i.position, i.reviewer${collate}`;
}

/** A queue assignment as read with whether it is labelled (0/1 in SQLite, a boolean in PostgreSQL). */
export interface QueueItemRow {
  position: number;
  trajectory_id: string;
  reviewer: string;
  labelled: number | boolean;
}

export function toQueueItem(r: QueueItemRow): QueueItem {
  return {
    position: r.position,
    trajectoryId: r.trajectory_id,
    reviewer: r.reviewer,
    labelled: !!r.labelled,
  };
}

/** Each reviewer's assigned and labelled items, in the queue's order of reviewers. */
export function progressOf(reviewers: readonly string[], items: readonly QueueItem[]): QueueProgress[] {
  const counts = new Map<string, QueueProgress>();
  for (const i of items) {
    const p = counts.get(i.reviewer) ?? { reviewer: i.reviewer, assigned: 0, labelled: 0 };
    p.assigned++;
    if (i.labelled) p.labelled++;
    counts.set(i.reviewer, p);
  }
  return reviewers.map((r) => counts.get(r) ?? { reviewer: r, assigned: 0, labelled: 0 });
}

/** A new label set as its row. */
export function newLabelSetRow(id: string, s: NewLabelSet): Record<string, unknown> {
  return {
    id,
    server: s.server,
    env: s.env,
    name: s.name,
    target: s.target,
    schema_json: JSON.stringify(s.schema),
    verdict: s.verdict,
    created_at: s.createdAt,
  };
}

/** A new review queue as its row (its items are written apart, one per position and reviewer). */
export function newQueueRow(id: string, q: NewReviewQueue): Record<string, unknown> {
  return {
    id,
    name: q.name,
    label_set_id: q.labelSet,
    run_id: q.runId,
    blind: q.blind ? 1 : 0,
    success_at: q.successAt,
    reviewers_json: JSON.stringify(reviewersOf(q.items)),
    created_at: q.createdAt,
  };
}

/** A new share link as its row. */
export function newShareRow(s: NewShareLink): Record<string, unknown> {
  return {
    token: s.token,
    server: s.server,
    env: s.env,
    split: s.split,
    tasks_json: JSON.stringify(s.tasks),
    note: s.note,
    expires_at: s.expiresAt,
    created_at: s.createdAt,
  };
}

/** An imported label's set as its row: a set not known here is created on the trajectory's environment. */
export function importedLabelSetRow(t: Trajectory, l: TrajectoryLabel): Record<string, unknown> {
  const { id, ...set } = l.set;
  return newLabelSetRow(id, { ...set, server: t.server, env: t.env ?? "", createdAt: l.created_at });
}

/** An imported label of trajectory `t` as its row. */
export function importedLabelRow(t: Trajectory, l: TrajectoryLabel): Record<string, unknown> {
  return {
    label_set_id: l.set.id,
    trajectory_id: t.id,
    step: l.step ?? EPISODE_STEP,
    reviewer: l.reviewer,
    value_json: JSON.stringify(l.value),
    created_at: l.created_at,
    updated_at: l.updated_at,
  };
}
