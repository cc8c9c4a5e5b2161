// The ReviewStore half of the store's contract (./types.ts, docs/review.md): label sets, people's
// labels on episodes and steps, review queues and their assignments, share links and their
// players. tests/store/conformance-review.ts is the suite both stores pass.
import type { JsonObject } from "@/lib/ors/protocol";

export const LABEL_TARGETS = ["episode", "step"] as const;
export type LabelTarget = (typeof LABEL_TARGETS)[number];

export interface NewLabelSet {
  id?: string;
  /** The environment whose episodes it labels. */
  server: string;
  env: string;
  name: string;
  target: LabelTarget;
  /** The JSON Schema of a label's value (an object). */
  schema: JsonObject;
  /** The field that says whether an episode is correct (lib/review/verdict.ts), or null for none. */
  verdict: string | null;
  createdAt: number;
}

export interface LabelSet extends Required<NewLabelSet> {}

/** Which label: a reviewer's, in a label set, on an episode (`step` null) or one of its steps. */
export interface LabelKey {
  labelSet: string;
  trajectoryId: string;
  step: number | null;
  reviewer: string;
}

export interface Label extends LabelKey {
  value: JsonObject;
  createdAt: number;
  updatedAt: number;
}

export interface LabelFilter {
  labelSet?: string;
  trajectoryId?: string;
  reviewer?: string;
  /** The labels, in the queue's label set, on the queue's episodes. */
  queue?: string;
}

export interface NewReviewQueue {
  id?: string;
  name: string;
  labelSet: string;
  /** The run its episodes were sampled from (null: picked otherwise). */
  runId: string | null;
  /** Reviewers see no reward until they have labelled the episode. */
  blind: boolean;
  /** An episode is the verifier's success when it finished with at least this reward. */
  successAt: number;
  /** The episodes in review order, each with the reviewers it is assigned to (at least one). */
  items: { trajectoryId: string; reviewers: string[] }[];
  createdAt: number;
}

export interface ReviewQueue {
  id: string;
  name: string;
  labelSet: string;
  runId: string | null;
  blind: boolean;
  successAt: number;
  /** Everyone with an assignment, in the order first assigned. */
  reviewers: string[];
  /** Episodes in the queue. */
  size: number;
  createdAt: number;
}

/** One episode of a queue as one reviewer sees it: its place, and whether they labelled it. */
export interface QueueItem {
  /** 0-based place in the queue (the same for every reviewer of the episode). */
  position: number;
  trajectoryId: string;
  reviewer: string;
  /** The reviewer has a label in the queue's set on this episode (on it or on one of its steps). */
  labelled: boolean;
}

export interface QueueProgress {
  reviewer: string;
  assigned: number;
  labelled: number;
}

/** A share link (`/play/<token>`): someone without the access token plays one environment's split. */
export interface NewShareLink {
  /** The secret in the link (lib/review/share.ts makes it). */
  token: string;
  server: string;
  env: string;
  split: string;
  /** The split's task indexes a player plays, in order. */
  tasks: number[];
  /** After this (ms since the epoch) the link opens nothing; null: until revoked. */
  expiresAt: number | null;
  /** What the link is for (shown to its maker, not to players). */
  note: string | null;
  createdAt: number;
}

export interface ShareLink extends NewShareLink {
  revokedAt: number | null;
}

/** A player of a share link and the run (policy `human`) their episodes are recorded in. */
export interface SharePlayer {
  token: string;
  player: string;
  runId: string;
  createdAt: number;
}

export interface ReviewStore {
  createLabelSet(s: NewLabelSet): Promise<LabelSet>;
  getLabelSet(id: string): Promise<LabelSet | null>;
  /** Label sets, newest first. */
  listLabelSets(f?: { server?: string; env?: string }): Promise<LabelSet[]>;
  /** Deletes a label set, its labels and its queues. */
  deleteLabelSet(id: string): Promise<boolean>;
  /**
   * Writes a reviewer's label (a new one, or replacing theirs with the same key: `createdAt` stays,
   * `updatedAt` becomes `at`). Null when the label set or the trajectory does not exist.
   */
  putLabel(key: LabelKey, value: JsonObject, at: number): Promise<Label | null>;
  deleteLabel(key: LabelKey): Promise<boolean>;
  /** Labels matching the filter: by trajectory, then step (the episode's first), then reviewer. */
  listLabels(f: LabelFilter): Promise<Label[]>;
  /** Stores a queue with its assignments. Throws when the label set or a trajectory does not exist. */
  createQueue(q: NewReviewQueue): Promise<ReviewQueue>;
  getQueue(id: string): Promise<ReviewQueue | null>;
  /** Queues, newest first. */
  listQueues(f?: { runId?: string; labelSet?: string }): Promise<ReviewQueue[]>;
  deleteQueue(id: string): Promise<boolean>;
  /** A queue's assignments in queue order (one reviewer's only, when named); an episode deleted since is gone from it. */
  queueItems(id: string, o?: { reviewer?: string }): Promise<QueueItem[]>;
  /** Per reviewer: episodes assigned and labelled, in the order reviewers were first assigned. */
  queueProgress(id: string): Promise<QueueProgress[]>;
  createShare(s: NewShareLink): Promise<ShareLink>;
  getShare(token: string): Promise<ShareLink | null>;
  /** Share links, newest first. */
  listShares(f?: { server?: string; env?: string }): Promise<ShareLink[]>;
  /** Revokes a link at `at` (once: false when unknown or already revoked). */
  revokeShare(token: string, at: number): Promise<boolean>;
  /** A player of a link, or null. */
  sharePlayer(token: string, player: string): Promise<SharePlayer | null>;
  /** Records a player's run; false when the player is already recorded (the first one stays). */
  addSharePlayer(p: SharePlayer): Promise<boolean>;
  /** A link's players, first joined first. */
  sharePlayers(token: string): Promise<SharePlayer[]>;
}
