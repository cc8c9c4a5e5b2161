// Reviews in the PostgreSQL store (the ReviewStore half of ../types.ts, as ../sqlite/review.ts in
// SQLite): label sets, labels, review queues with their assignments, share links and their players;
// and the labels a trajectory carries when it is read or imported (FORMAT.md "Labels").
import "server-only";
import type pg from "pg";
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
import { insertOf, numberedParams } from "../rows";
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
import { PostgresRunStore } from "./runs";

/** A trajectory's labels with their sets, on `c` (the reading transaction). */
export async function trajectoryLabels(c: pg.ClientBase, id: string): Promise<TrajectoryLabel[]> {
  const r = await c.query<LabelRow & LabelSetRow>(trajectoryLabelsSql("$1"), [id]);
  return r.rows.map(toTrajectoryLabel);
}

/** Stores an imported trajectory's labels on `c`: a set not known here is created on its environment. */
export async function importLabels(c: pg.ClientBase, t: Trajectory): Promise<void> {
  for (const l of t.labels ?? []) {
    const set = insertOf("label_sets", importedLabelSetRow(t, l), true, "ON CONFLICT (id) DO NOTHING");
    await c.query(set.sql, set.values);
    const label = insertOf("labels", importedLabelRow(t, l), true, "ON CONFLICT DO NOTHING");
    await c.query(label.sql, label.values);
  }
}

/**
 * The ReviewStore contract over PostgreSQL, on top of the runs half: ./store.ts extends it with
 * trajectories.
 */
export abstract class PostgresReviewStore extends PostgresRunStore implements ReviewStore {
  /** The rows of `select` that pass optional equality filters, newest first (`alias`: its table's, if any). */
  private async newestFirst<F extends object, R extends pg.QueryResultRow, T>(
    select: string,
    f: F,
    columns: { [K in keyof F]?: string },
    to: (r: R) => T,
    alias = "",
  ): Promise<T[]> {
    const { bind, params } = numberedParams();
    const r = await this.query<R>(
      `${select} ${equalsWhere(f, columns, bind)} ORDER BY ${alias}created_at DESC, ${alias}seq DESC`,
      params,
    );
    return r.rows.map(to);
  }

  async createLabelSet(s: NewLabelSet): Promise<LabelSet> {
    const row = insertOf("label_sets", newLabelSetRow(s.id ?? newLabelSetId(), s), true, "RETURNING *");
    const r = await this.query<LabelSetRow>(row.sql, row.values);
    return toLabelSet(r.rows[0]!);
  }

  async getLabelSet(id: string): Promise<LabelSet | null> {
    const r = await this.query<LabelSetRow>("SELECT * FROM label_sets WHERE id = $1", [id]);
    return r.rows[0] ? toLabelSet(r.rows[0]) : null;
  }

  async listLabelSets(f: { server?: string; env?: string } = {}): Promise<LabelSet[]> {
    return this.newestFirst("SELECT * FROM label_sets", f, ENV_FILTERS, toLabelSet);
  }

  async deleteLabelSet(id: string): Promise<boolean> {
    return ((await this.query("DELETE FROM label_sets WHERE id = $1", [id])).rowCount ?? 0) > 0;
  }

  async putLabel(k: LabelKey, value: JsonObject, at: number): Promise<Label | null> {
    // Inserted only when both the set and the trajectory exist (no row: one of them does not).
    const r = await this.query<LabelRow>(
      `INSERT INTO labels (label_set_id, trajectory_id, step, reviewer, value_json, created_at, updated_at)
         SELECT $1, $2, $3, $4, $5, $6, $6
         WHERE EXISTS (SELECT 1 FROM label_sets WHERE id = $1) AND EXISTS (SELECT 1 FROM trajectories WHERE id = $2)
       ON CONFLICT (label_set_id, trajectory_id, step, reviewer)
         DO UPDATE SET value_json = excluded.value_json, updated_at = excluded.updated_at
       RETURNING *`,
      [k.labelSet, k.trajectoryId, k.step ?? EPISODE_STEP, k.reviewer, JSON.stringify(value), at],
    );
    return r.rows[0] ? toLabel(r.rows[0]) : null;
  }

  async deleteLabel(k: LabelKey): Promise<boolean> {
    const r = await this.query(
      "DELETE FROM labels WHERE label_set_id = $1 AND trajectory_id = $2 AND step = $3 AND reviewer = $4",
      [k.labelSet, k.trajectoryId, k.step ?? EPISODE_STEP, k.reviewer],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async listLabels(f: LabelFilter): Promise<Label[]> {
    const { bind, params } = numberedParams();
    const where = labelsWhere(f, bind);
    const r = await this.query<LabelRow>(
      `SELECT * FROM labels ${where} ORDER BY trajectory_id COLLATE "C", step, reviewer COLLATE "C"`,
      params,
    );
    return r.rows.map(toLabel);
  }

  async createQueue(q: NewReviewQueue): Promise<ReviewQueue> {
    const id = q.id ?? newQueueId();
    await this.db.transaction(async (c) => {
      const row = insertOf("review_queues", newQueueRow(id, q), true);
      await c.query(row.sql, row.values);
      const positions: number[] = [];
      const trajectories: string[] = [];
      const reviewers: string[] = [];
      q.items.forEach((it, position) => {
        for (const reviewer of new Set(it.reviewers)) {
          positions.push(position);
          trajectories.push(it.trajectoryId);
          reviewers.push(reviewer);
        }
      });
      await c.query(
        `INSERT INTO review_items (queue_id, position, trajectory_id, reviewer)
           SELECT $1, * FROM unnest($2::int[], $3::text[], $4::text[])`,
        [id, positions, trajectories, reviewers],
      );
    });
    return (await this.getQueue(id))!;
  }

  async getQueue(id: string): Promise<ReviewQueue | null> {
    const r = await this.query<QueueRow>(`${QUEUE_SELECT} WHERE q.id = $1`, [id]);
    return r.rows[0] ? toQueue(r.rows[0]) : null;
  }

  async listQueues(f: { runId?: string; labelSet?: string } = {}): Promise<ReviewQueue[]> {
    return this.newestFirst(QUEUE_SELECT, f, QUEUE_FILTERS, toQueue, "q.");
  }

  async deleteQueue(id: string): Promise<boolean> {
    return ((await this.query("DELETE FROM review_queues WHERE id = $1", [id])).rowCount ?? 0) > 0;
  }

  async queueItems(id: string, o: { reviewer?: string } = {}): Promise<QueueItem[]> {
    const r = await this.query<QueueItemRow>(queueItemsSql("$1", "$2::text", ' COLLATE "C"'), [
      id,
      o.reviewer ?? null,
    ]);
    return r.rows.map(toQueueItem);
  }

  async queueProgress(id: string): Promise<QueueProgress[]> {
    const q = await this.getQueue(id);
    if (!q) return [];
    return progressOf(q.reviewers, await this.queueItems(id));
  }

  async createShare(s: NewShareLink): Promise<ShareLink> {
    const row = insertOf("share_links", newShareRow(s), true, "RETURNING *");
    const r = await this.query<ShareRow>(row.sql, row.values);
    return toShare(r.rows[0]!);
  }

  async getShare(token: string): Promise<ShareLink | null> {
    const r = await this.query<ShareRow>("SELECT * FROM share_links WHERE token = $1", [token]);
    return r.rows[0] ? toShare(r.rows[0]) : null;
  }

  async listShares(f: { server?: string; env?: string } = {}): Promise<ShareLink[]> {
    return this.newestFirst("SELECT * FROM share_links", f, ENV_FILTERS, toShare);
  }

  async revokeShare(token: string, at: number): Promise<boolean> {
    const r = await this.query(
      "UPDATE share_links SET revoked_at = $1 WHERE token = $2 AND revoked_at IS NULL",
      [at, token],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async sharePlayer(token: string, player: string): Promise<SharePlayer | null> {
    const r = await this.query<PlayerRow>("SELECT * FROM share_players WHERE token = $1 AND player = $2", [
      token,
      player,
    ]);
    return r.rows[0] ? toPlayer(r.rows[0]) : null;
  }

  async addSharePlayer(p: SharePlayer): Promise<boolean> {
    const r = await this.query(
      "INSERT INTO share_players (token, player, run_id, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
      [p.token, p.player, p.runId, p.createdAt],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async sharePlayers(token: string): Promise<SharePlayer[]> {
    const r = await this.query<PlayerRow>(
      "SELECT * FROM share_players WHERE token = $1 ORDER BY created_at, seq",
      [token],
    );
    return r.rows.map(toPlayer);
  }
}
