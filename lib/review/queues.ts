// Review queues (docs/review.md "Queues"): a sample of a run's episodes assigned to reviewers by
// name, one episode at a time as a reviewer sees it (blind: no reward, no metadata, nobody else's
// labels until they have labelled it), and the verifier's agreement with the labels — the confusion
// matrix with the episodes behind each cell, its error rates, Cohen's κ between reviewers.
import "server-only";
import { OrsError } from "@/lib/ors/protocol";
import { runConfigOf } from "@/lib/runs/summary";
import type { Label, LabelSet, PlaygroundStore, QueueItem, ReviewQueue } from "@/lib/store/types";
import type { Trajectory } from "@/lib/trajectory/schema";
import {
  type Confusion,
  cohensKappa,
  confusionMatrix,
  type Judged,
  type Kappa,
  type VerifierRates,
  verifierRates,
} from "./agreement";
import { sampleEpisodes } from "./sampling";
import type { QueueRequest } from "./spec";
import { humanVerdict, majority, type VerdictRule, verdictRuleOf, verifierSuccess } from "./verdict";

export const DEFAULT_QUEUE_SIZE = 40;

export async function labelSetOf(store: PlaygroundStore, id: string): Promise<LabelSet> {
  const set = await store.getLabelSet(id);
  if (!set) throw new OrsError(404, `no label set with id "${id}"`);
  return set;
}

export async function queueOf(store: PlaygroundStore, id: string): Promise<ReviewQueue> {
  const q = await store.getQueue(id);
  if (!q) throw new OrsError(404, `no review queue with id "${id}"`);
  return q;
}

/**
 * Each of `count` episodes assigned to `perEpisode` reviewers in turn (episode i to reviewers i,
 * i+1, ...): every reviewer gets about the same number, and with two or more each pair shares some.
 */
export function assign(count: number, reviewers: readonly string[], perEpisode: number): string[][] {
  const k = Math.min(perEpisode, reviewers.length);
  return Array.from({ length: count }, (_, i) =>
    Array.from({ length: k }, (_, j) => reviewers[(i + j) % reviewers.length]!),
  );
}

/** `POST /api/review/queues`: a sample of the run's played episodes, assigned. */
export async function createQueue(
  store: PlaygroundStore,
  r: QueueRequest,
  now: number,
): Promise<ReviewQueue> {
  const set = await labelSetOf(store, r.labelSet);
  const run = await store.getRun(r.run);
  if (!run) throw new OrsError(404, `no run with id "${r.run}"`);
  if (run.server !== set.server || run.env !== set.env)
    throw new OrsError(
      400,
      `the label set "${set.name}" is for ${set.server}/${set.env}, the run ${run.id} played ${run.server}/${run.env}`,
    );
  const played = (await store.runEpisodes(run.id))
    .filter((e) => e.status === "done" && e.trajectoryId)
    .map((e) => ({ id: e.trajectoryId!, reward: e.reward }));
  if (!played.length) throw new OrsError(409, `the run ${run.id} has no played episode to review yet`);
  const chosen = sampleEpisodes(played, r.size ?? DEFAULT_QUEUE_SIZE, {
    stratified: r.stratified ?? false,
    seed: r.seed ?? 1,
  });
  const reviewers = [...new Set(r.reviewers)];
  const assigned = assign(chosen.length, reviewers, r.perEpisode ?? 1);
  return store.createQueue({
    name: r.name ?? `${set.name}: ${chosen.length} episodes of run ${run.id}`,
    labelSet: set.id,
    runId: run.id,
    blind: r.blind ?? true,
    successAt: r.successAt ?? runConfigOf(run).successAt ?? 1,
    items: chosen.map((e, i) => ({ trajectoryId: e.id, reviewers: assigned[i]! })),
    createdAt: now,
  });
}

/** A trajectory as a reviewer sees it before labelling: rewards and metadata hidden. */
export type ReviewTrajectory = Omit<Trajectory, "total_reward" | "labels"> & { total_reward: number | null };

function blinded(t: Trajectory): ReviewTrajectory {
  const { labels: _l, ...rest } = t;
  return {
    ...rest,
    total_reward: null,
    steps: t.steps.map((s) => ({ ...s, reward: null, metadata: null })),
  };
}

/** One episode of a queue for one reviewer: where it is in their list, their labels, the episode. */
export interface ReviewEpisode {
  queue: ReviewQueue;
  labelSet: LabelSet;
  reviewer: string;
  position: number;
  /** Its place among the reviewer's episodes (0-based), and how many they have. */
  index: number;
  total: number;
  labelled: number;
  previous: number | null;
  next: number | null;
  /** The next episode they have not labelled (after this one, else from the start); null when all are. */
  nextUnlabelled: number | null;
  /** Whether rewards are shown: the queue is not blind, or the reviewer has labelled the episode. */
  revealed: boolean;
  /** Their label on the episode, and on its steps. */
  label: Label | null;
  stepLabels: Label[];
  trajectory: ReviewTrajectory;
}

function nextUnlabelled(items: readonly QueueItem[], from: number): number | null {
  const after =
    items.slice(from + 1).find((i) => !i.labelled) ?? items.slice(0, from).find((i) => !i.labelled);
  return after ? after.position : null;
}

/** `GET /api/review/queues/<id>/episodes/<position>?reviewer=`: one episode as the reviewer sees it. */
export async function reviewEpisode(
  store: PlaygroundStore,
  queueId: string,
  position: number,
  reviewer: string,
): Promise<ReviewEpisode> {
  const queue = await queueOf(store, queueId);
  const labelSet = await labelSetOf(store, queue.labelSet);
  const items = await store.queueItems(queueId, { reviewer });
  if (!items.length) throw new OrsError(404, `${reviewer} has no episode in the queue "${queue.name}"`);
  const index = items.findIndex((i) => i.position === position);
  if (index < 0) throw new OrsError(404, `episode ${position} of the queue is not assigned to ${reviewer}`);
  const item = items[index]!;
  const t = await store.get(item.trajectoryId);
  if (!t) throw new OrsError(404, `the episode ${item.trajectoryId} was deleted`);
  const mine = await store.listLabels({ labelSet: labelSet.id, trajectoryId: t.id, reviewer });
  const revealed = !queue.blind || item.labelled;
  const { labels: _others, ...visible } = t;
  return {
    queue,
    labelSet,
    reviewer,
    position,
    index,
    total: items.length,
    labelled: items.filter((i) => i.labelled).length,
    previous: index > 0 ? items[index - 1]!.position : null,
    next: index < items.length - 1 ? items[index + 1]!.position : null,
    nextUnlabelled: nextUnlabelled(items, index),
    revealed,
    label: mine.find((l) => l.step === null) ?? null,
    stepLabels: mine.filter((l) => l.step !== null),
    trajectory: revealed ? visible : blinded(t),
  };
}

/** One episode in the agreement report: what the verifier and each reviewer said. */
export interface JudgedEpisode {
  trajectoryId: string;
  position: number;
  reward: number;
  verifier: boolean;
  /** Each reviewer's verdict (null: their label does not say). */
  reviewers: Record<string, boolean | null>;
  /** The majority of the reviewers' verdicts; null when tied or nobody said. */
  human: boolean | null;
}

export interface ReviewerPairKappa extends Kappa {
  a: string;
  b: string;
}

export interface AgreementReport {
  queue: ReviewQueue;
  labelSet: LabelSet;
  /** The verdict field, or null when the set has no notion of correct (then only progress is given). */
  rule: VerdictRule | null;
  successAt: number;
  episodes: JudgedEpisode[];
  /** Labelled episodes whose reviewers split evenly (left out of the matrix). */
  disputed: string[];
  /** Episodes nobody has given a verdict on yet. */
  unlabelled: string[];
  confusion: Confusion;
  rates: VerifierRates;
  /** Cohen's κ of every pair of reviewers, over the episodes both gave a verdict on. */
  kappa: ReviewerPairKappa[];
}

function pairKappas(episodes: readonly JudgedEpisode[], reviewers: readonly string[]): ReviewerPairKappa[] {
  const out: ReviewerPairKappa[] = [];
  for (let i = 0; i < reviewers.length; i++)
    for (let j = i + 1; j < reviewers.length; j++) {
      const [a, b] = [reviewers[i]!, reviewers[j]!];
      const pairs: [boolean, boolean][] = [];
      for (const e of episodes) {
        const x = e.reviewers[a];
        const y = e.reviewers[b];
        if (typeof x === "boolean" && typeof y === "boolean") pairs.push([x, y]);
      }
      if (pairs.length) out.push({ a, b, ...cohensKappa(pairs) });
    }
  return out;
}

/** `GET /api/review/queues/<id>/agreement`: the verifier against the reviewers' verdicts. */
export async function agreementReport(store: PlaygroundStore, queueId: string): Promise<AgreementReport> {
  const queue = await queueOf(store, queueId);
  const labelSet = await labelSetOf(store, queue.labelSet);
  const rule = labelSet.verdict ? verdictRuleOf(labelSet.schema, labelSet.verdict) : null;
  const items = await store.queueItems(queueId);
  const labels = rule ? await store.listLabels({ queue: queueId }) : [];
  const episodes: JudgedEpisode[] = [];
  const seen = new Set<number>();
  for (const item of items) {
    if (seen.has(item.position)) continue;
    seen.add(item.position);
    const t = await store.summary(item.trajectoryId);
    if (!t) continue;
    const reviewers: Record<string, boolean | null> = {};
    for (const i of items) if (i.position === item.position) reviewers[i.reviewer] = null;
    for (const l of labels)
      if (rule && l.trajectoryId === t.id && l.step === null && l.reviewer in reviewers)
        reviewers[l.reviewer] = humanVerdict(l.value, rule, queue.successAt);
    const said = Object.values(reviewers).filter((v): v is boolean => v !== null);
    episodes.push({
      trajectoryId: t.id,
      position: item.position,
      reward: t.total_reward,
      verifier: verifierSuccess(t, queue.successAt),
      reviewers,
      human: said.length ? majority(said) : null,
    });
  }
  const judged: Judged[] = episodes
    .filter((e) => e.human !== null)
    .map((e) => ({ id: e.trajectoryId, verifier: e.verifier, human: e.human! }));
  const confusion = confusionMatrix(judged);
  return {
    queue,
    labelSet,
    rule,
    successAt: queue.successAt,
    episodes,
    disputed: episodes
      .filter((e) => e.human === null && Object.values(e.reviewers).some((v) => v !== null))
      .map((e) => e.trajectoryId),
    unlabelled: episodes
      .filter((e) => Object.values(e.reviewers).every((v) => v === null))
      .map((e) => e.trajectoryId),
    confusion,
    rates: verifierRates(confusion),
    kappa: pairKappas(episodes, queue.reviewers),
  };
}

/** What people said the episode's reward should be: the mean of their target rewards, else 0 (incorrect). */
function correctedReward(report: AgreementReport, labels: readonly Label[], id: string): number {
  if (report.rule?.kind !== "reward") return 0;
  const field = report.rule.field;
  const targets = labels
    .filter((l) => l.trajectoryId === id && l.step === null && typeof l.value[field] === "number")
    .map((l) => l.value[field] as number)
    .filter((v) => v < report.successAt);
  return targets.length ? targets.reduce((a, b) => a + b, 0) / targets.length : 0;
}

/**
 * The golden copy of a confirmed false positive: the same task and actions, its reward corrected
 * to what reviewers said (on the step that finished it; every other step 0), so replaying it with
 * `test` passes only once the verifier agrees with them. Its id is derived from the original's, so
 * confirming twice adds nothing.
 */
export function correctedCopy(t: Trajectory, reward: number): Trajectory {
  const { labels: _l, run: _r, ...rest } = t;
  const last = t.steps.findLastIndex((s) => !s.after_end);
  const steps = t.steps.map((s, i) => ({
    ...s,
    reward: s.after_end ? s.reward : i === last ? reward : s.reward === null ? null : 0,
    replay: null,
  }));
  return {
    ...rest,
    id: `fp-${t.id}`.slice(0, 64),
    steps,
    total_reward: last >= 0 ? reward : 0,
    origin: { kind: "review", from: t.id },
    golden: true,
  };
}

/**
 * `POST /api/review/queues/<id>/golden`: each confirmed false positive (the verifier rewarded it, the
 * reviewers judged it incorrect) becomes a golden episode with the reward they said, so the fixed
 * verifier is held to them (`ors-playground test`).
 */
export async function goldenFalsePositives(
  store: PlaygroundStore,
  queueId: string,
): Promise<{ golden: { from: string; id: string; reward: number }[] }> {
  const report = await agreementReport(store, queueId);
  if (!report.rule)
    throw new OrsError(
      409,
      `the label set "${report.labelSet.name}" has no verdict: no false positives to confirm`,
    );
  const labels = await store.listLabels({ queue: queueId });
  const copies: Trajectory[] = [];
  for (const id of report.confusion.fp) {
    const t = await store.get(id);
    if (t) copies.push(correctedCopy(t, correctedReward(report, labels, id)));
  }
  await store.importMany(copies);
  return { golden: copies.map((c) => ({ from: c.origin!.from!, id: c.id, reward: c.total_reward })) };
}
