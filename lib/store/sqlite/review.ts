// Reviews in the SQLite store (the ReviewStore half of ../types.ts): label sets, labels, review
// queues with their assignments, share links and their players; and the labels a trajectory carries
// when it is read or imported (FORMAT.md "Labels").
import "server-only";
import type { JsonObject } from "@/lib/ors/protocol";
import type { Trajectory, TrajectoryLabel } from "@/lib/trajectory/schema";
import {
  ENV_FILTERS,
  EPISODE_STEP,
  equalsWhere,
  importedLabelRow,
  importedLabelSetRow,
  type LabelRow,
  type LabelSetRow,
  labelsWhere,
  newLabelSetId,
  newLabelSetRow,
  newQueueId,
  newQueueRow,
  newShareRow,
  type PlayerRow,
  progressOf,
  QUEUE_FILTERS,
  QUEUE_SELECT,
  type QueueItemRow,
  type QueueRow,
  queueItemsSql,
  type ShareRow,
  toLabel,
  toLabelSet,
  toPlayer,
  toQueue,
  toQueueItem,
  toShare,
  toTrajectoryLabel,
  trajectoryLabelsSql,
} from "../review-rows";
import { insertOf, namedParams } from "../rows";
import type {
  Label,
  LabelFilter,
  LabelKey,
  LabelSet,
  NewLabelSet,
  NewReviewQueue,
  NewShareLink,
  QueueItem,
  QueueProgress,
  ReviewQueue,
  ReviewStore,
  ShareLink,
  SharePlayer,
} from "../types";
import type { Statements } from "./db";
import { SqliteRunStore } from "./runs";

/** A trajectory's labels with their sets (FORMAT.md "Labels"). */
export function trajectoryLabels(sql: Statements, id: string): TrajectoryLabel[] {
  return (sql(trajectoryLabelsSql("?")).all(id) as (LabelRow & LabelSetRow)[]).map(toTrajectoryLabel);
}

/** Stores an imported trajectory's labels: a set not known here is created on its environment. */
export function importLabels(sql: Statements, t: Trajectory): void {
  for (const l of t.labels ?? []) {
    const set = insertOf("label_sets", importedLabelSetRow(t, l), false, "ON CONFLICT (id) DO NOTHING");
    sql(set.sql).run(...set.values);
    const label = insertOf("labels", importedLabelRow(t, l), false, "ON CONFLICT DO NOTHING");
    sql(label.sql).run(...label.values);
  }
}

/**
 * The ReviewStore contract (../types.ts) over SQLite, on top of the runs half: ./store.ts extends it
 * with trajectories. better-sqlite3 is synchronous; the methods are async only to honour the contract.
 */
export abstract class SqliteReviewStore extends SqliteRunStore implements ReviewStore {
  protected abstract readonly sql: Statements;

  /** The rows of `select` that pass optional equality filters, newest first (`alias`: its table's, if any). */
  private newestFirst<F extends object, R, T>(
    select: string,
    f: F,
    columns: { [K in keyof F]?: string },
    to: (r: R) => T,
    alias = "",
  ): T[] {
    const { bind, params } = namedParams();
    const where = equalsWhere(f, columns, bind);
    const rows = this.sql(`${select} ${where} ORDER BY ${alias}created_at DESC, ${alias}rowid DESC`).all(
      params,
    );
    return (rows as R[]).map(to);
  }

  async createLabelSet(s: NewLabelSet): Promise<LabelSet> {
    const id = s.id ?? newLabelSetId();
    const row = insertOf("label_sets", newLabelSetRow(id, s), false);
    this.sql(row.sql).run(...row.values);
    return (await this.getLabelSet(id))!;
  }

  async getLabelSet(id: string): Promise<LabelSet | null> {
    const r = this.sql("SELECT * FROM label_sets WHERE id = ?").get(id) as LabelSetRow | undefined;
    return r ? toLabelSet(r) : null;
  }

  async listLabelSets(f: { server?: string; env?: string } = {}): Promise<LabelSet[]> {
    return this.newestFirst("SELECT * FROM label_sets", f, ENV_FILTERS, toLabelSet);
  }

  async deleteLabelSet(id: string): Promise<boolean> {
    return this.sql("DELETE FROM label_sets WHERE id = ?").run(id).changes > 0;
  }

  async putLabel(k: LabelKey, value: JsonObject, at: number): Promise<Label | null> {
    const known = this.sql(
      "SELECT (SELECT 1 FROM label_sets WHERE id = ?) AS s, (SELECT 1 FROM trajectories WHERE id = ?) AS t",
    ).get(k.labelSet, k.trajectoryId) as { s: number | null; t: number | null };
    if (!known.s || !known.t) return null;
    const step = k.step ?? EPISODE_STEP;
    const r = this.sql(
      `INSERT INTO labels (label_set_id, trajectory_id, step, reviewer, value_json, created_at, updated_at)
         VALUES (@set, @trajectory, @step, @reviewer, @value, @at, @at)
       ON CONFLICT (label_set_id, trajectory_id, step, reviewer)
         DO UPDATE SET value_json = excluded.value_json, updated_at = excluded.updated_at
       RETURNING *`,
    ).get({
      set: k.labelSet,
      trajectory: k.trajectoryId,
      step,
      reviewer: k.reviewer,
      value: JSON.stringify(value),
      at,
    }) as LabelRow;
    return toLabel(r);
  }

  async deleteLabel(k: LabelKey): Promise<boolean> {
    return (
      this.sql(
        "DELETE FROM labels WHERE label_set_id = ? AND trajectory_id = ? AND step = ? AND reviewer = ?",
      ).run(k.labelSet, k.trajectoryId, k.step ?? EPISODE_STEP, k.reviewer).changes > 0
    );
  }

  async listLabels(f: LabelFilter): Promise<Label[]> {
    const { bind, params } = namedParams();
    const where = labelsWhere(f, bind);
    return (
      this.sql(`SELECT * FROM labels ${where} ORDER BY trajectory_id, step, reviewer`).all(
        params,
      ) as LabelRow[]
    ).map(toLabel);
  }

  async createQueue(q: NewReviewQueue): Promise<ReviewQueue> {
    const id = q.id ?? newQueueId();
    const item = this.sql(
      "INSERT INTO review_items (queue_id, position, trajectory_id, reviewer) VALUES (?, ?, ?, ?)",
    );
    this.db.transaction(() => {
      const row = insertOf("review_queues", newQueueRow(id, q), false);
      this.sql(row.sql).run(...row.values);
      q.items.forEach((it, position) => {
        for (const reviewer of new Set(it.reviewers)) item.run(id, position, it.trajectoryId, reviewer);
      });
    })();
    return (await this.getQueue(id))!;
  }

  async getQueue(id: string): Promise<ReviewQueue | null> {
    const r = this.sql(`${QUEUE_SELECT} WHERE q.id = ?`).get(id) as QueueRow | undefined;
    return r ? toQueue(r) : null;
  }

  async listQueues(f: { runId?: string; labelSet?: string } = {}): Promise<ReviewQueue[]> {
    return this.newestFirst(QUEUE_SELECT, f, QUEUE_FILTERS, toQueue, "q.");
  }

  async deleteQueue(id: string): Promise<boolean> {
    return this.sql("DELETE FROM review_queues WHERE id = ?").run(id).changes > 0;
  }

  async queueItems(id: string, o: { reviewer?: string } = {}): Promise<QueueItem[]> {
    const rows = this.sql(queueItemsSql("@id", "@reviewer")).all({
      id,
      reviewer: o.reviewer ?? null,
    }) as QueueItemRow[];
    return rows.map(toQueueItem);
  }

  async queueProgress(id: string): Promise<QueueProgress[]> {
    const q = await this.getQueue(id);
    if (!q) return [];
    return progressOf(q.reviewers, await this.queueItems(id));
  }

  async createShare(s: NewShareLink): Promise<ShareLink> {
    const row = insertOf("share_links", newShareRow(s), false);
    this.sql(row.sql).run(...row.values);
    return (await this.getShare(s.token))!;
  }

  async getShare(token: string): Promise<ShareLink | null> {
    const r = this.sql("SELECT * FROM share_links WHERE token = ?").get(token) as ShareRow | undefined;
    return r ? toShare(r) : null;
  }

  async listShares(f: { server?: string; env?: string } = {}): Promise<ShareLink[]> {
    return this.newestFirst("SELECT * FROM share_links", f, ENV_FILTERS, toShare);
  }

  async revokeShare(token: string, at: number): Promise<boolean> {
    return (
      this.sql("UPDATE share_links SET revoked_at = ? WHERE token = ? AND revoked_at IS NULL").run(at, token)
        .changes > 0
    );
  }

  async sharePlayer(token: string, player: string): Promise<SharePlayer | null> {
    const r = this.sql("SELECT * FROM share_players WHERE token = ? AND player = ?").get(token, player) as
      | PlayerRow
      | undefined;
    return r ? toPlayer(r) : null;
  }

  async addSharePlayer(p: SharePlayer): Promise<boolean> {
    return (
      this.sql(
        "INSERT INTO share_players (token, player, run_id, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
      ).run(p.token, p.player, p.runId, p.createdAt).changes > 0
    );
  }

  async sharePlayers(token: string): Promise<SharePlayer[]> {
    return (
      this.sql("SELECT * FROM share_players WHERE token = ? ORDER BY created_at, rowid").all(
        token,
      ) as PlayerRow[]
    ).map(toPlayer);
  }
}
