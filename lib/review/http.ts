// The review API (docs/review.md "HTTP API") as functions the thin route handlers under
// app/api/review, app/api/shares, app/api/play and app/api/leaderboards call: bodies checked with
// zod, every refusal an OrsError answered as `{detail}` with its status. JSON in camelCase.
import "server-only";
import { z } from "zod";
import { BodyError, noStore } from "@/lib/episodes/http";
import { describeZodError, errorResponse, OrsError } from "@/lib/ors/protocol";
import { isRunError } from "@/lib/runs/errors";
import { bodyOf } from "@/lib/runs/http";
import { shareCookie } from "@/lib/security/request-policy";
import type { LabelSet, PlaygroundStore, ReviewQueue } from "@/lib/store/types";
import { checkLabelSet, checkLabelValue } from "./label-sets";
import { createQueue, labelSetOf } from "./queues";
import {
  createShare,
  joinShare,
  nextEpisode,
  openShare,
  progressOf,
  publicShare,
  type ShareDeps,
} from "./share";
import {
  labelRequestSchema,
  labelSetRequestSchema,
  playerRequestSchema,
  queueRequestSchema,
  shareRequestSchema,
} from "./spec";

/** By name, not instanceof: Next bundles each route separately. */
function isOrsError(err: unknown): err is OrsError {
  return err instanceof Error && err.name === "OrsError" && typeof (err as OrsError).status === "number";
}

/** Answers `fn`'s result as JSON (with `headers`), or its refusal as `{detail}`. */
export async function answer(
  fn: () => Promise<unknown>,
  status = 200,
  headers: Record<string, string> = {},
): Promise<Response> {
  try {
    return Response.json(await fn(), { status, headers: { ...noStore, ...headers } });
  } catch (err) {
    const refusal = refusalOf(err);
    if (refusal) return refusal;
    throw err;
  }
}

/** Answers with `fn`'s own Response (a stream, a file), or its refusal as `{detail}`. */
export async function respond(fn: () => Promise<Response>): Promise<Response> {
  try {
    return await fn();
  } catch (err) {
    const refusal = refusalOf(err);
    if (refusal) return refusal;
    throw err;
  }
}

/** The answer of a refusal this API throws (OrsError, the runs' RunError, a BodyError), else null. */
export function refusalOf(err: unknown): Response | null {
  if (isOrsError(err)) return errorResponse(err.status, err.detail, err.headers);
  if (isRunError(err) || err instanceof BodyError) return errorResponse(err.status, err.detail);
  return null;
}

/**
 * The origin the request was sent to, as its browser sees it (its `Host`, which the request policy
 * has checked): report files link back to the playground's pages there.
 */
export function originOf(req: Request): string {
  const host = req.headers.get("host");
  const proto = req.headers.get("x-forwarded-proto") === "https" ? "https" : "http";
  return host ? `${proto}://${host}` : new URL(req.url).origin;
}

/** Query parameters checked with a strict schema (a 400 naming the problem). */
function queryOf<T>(url: URL, schema: z.ZodType<T>): T {
  const q = schema.safeParse(Object.fromEntries([...url.searchParams].filter(([, v]) => v !== "")));
  if (!q.success) throw new OrsError(400, describeZodError(q.error));
  return q.data;
}

const envQuery = z.strictObject({
  server: z.string().max(64).optional(),
  env: z.string().max(256).optional(),
});

// ---- Label sets and labels ----

export async function listLabelSets(store: PlaygroundStore, url: URL) {
  return { items: await store.listLabelSets(queryOf(url, envQuery)) };
}

export async function createLabelSet(store: PlaygroundStore, req: Request): Promise<LabelSet> {
  const r = await bodyOf(req, labelSetRequestSchema);
  const { verdict } = checkLabelSet(r);
  return store.createLabelSet({
    server: r.server,
    env: r.env,
    name: r.name,
    target: r.target ?? "episode",
    schema: r.schema,
    verdict,
    createdAt: Date.now(),
  });
}

const labelQuery = z.strictObject({
  labelSet: z.string().max(64).optional(),
  trajectory: z.string().max(64).optional(),
  reviewer: z.string().max(100).optional(),
  queue: z.string().max(64).optional(),
});

export async function listLabels(store: PlaygroundStore, url: URL) {
  const q = queryOf(url, labelQuery);
  if (!q.labelSet && !q.trajectory && !q.queue)
    throw new OrsError(400, "say whose labels: ?labelSet=, ?trajectory= or ?queue=");
  return {
    items: await store.listLabels({
      labelSet: q.labelSet,
      trajectoryId: q.trajectory,
      reviewer: q.reviewer,
      queue: q.queue,
    }),
  };
}

/** `PUT /api/review/labels`: a reviewer's label, checked against its set, written (or replaced). */
export async function putLabel(store: PlaygroundStore, req: Request) {
  const r = await bodyOf(req, labelRequestSchema);
  const set = await labelSetOf(store, r.labelSet);
  const step = r.step ?? null;
  checkLabelValue(set, r.value, step);
  if (step !== null) {
    const t = await store.get(r.trajectoryId);
    if (t && !t.steps.some((s) => s.index === step))
      throw new OrsError(400, `step: the episode ${r.trajectoryId} has no step ${step}`);
  }
  const label = await store.putLabel(
    { labelSet: set.id, trajectoryId: r.trajectoryId, step, reviewer: r.reviewer },
    r.value,
    Date.now(),
  );
  if (!label) throw new OrsError(404, `no trajectory with id "${r.trajectoryId}"`);
  return label;
}

// ---- Queues ----

export async function queueWithProgress(store: PlaygroundStore, q: ReviewQueue) {
  return { ...q, progress: await store.queueProgress(q.id) };
}

const queueQuery = z.strictObject({
  run: z.string().max(64).optional(),
  labelSet: z.string().max(64).optional(),
});

export async function listQueues(store: PlaygroundStore, url: URL) {
  const q = queryOf(url, queueQuery);
  const items = await store.listQueues({ runId: q.run, labelSet: q.labelSet });
  return { items: await Promise.all(items.map((x) => queueWithProgress(store, x))) };
}

export async function startQueue(store: PlaygroundStore, req: Request) {
  return queueWithProgress(
    store,
    await createQueue(store, await bodyOf(req, queueRequestSchema), Date.now()),
  );
}

/** A queue's episode position from the URL: a non-negative integer. */
export function positionOf(raw: string): number {
  if (!/^\d{1,6}$/.test(raw))
    throw new OrsError(400, `position: expected a number, got ${JSON.stringify(raw.slice(0, 20))}`);
  return Number(raw);
}

/** `?reviewer=`: who is reviewing (required). */
export function reviewerOf(url: URL): string {
  const r = url.searchParams.get("reviewer")?.trim();
  if (!r) throw new OrsError(400, "say who is reviewing: ?reviewer=<name>");
  return r;
}

// ---- Share links ----

export async function startShare(d: ShareDeps, req: Request) {
  return createShare(d, await bodyOf(req, shareRequestSchema));
}

/** A link with its players and how far each got. */
export async function shareWithPlayers(d: ShareDeps, token: string) {
  const share = await d.store.getShare(token);
  if (!share) throw new OrsError(404, "no such share link");
  const players = await Promise.all(
    (await d.store.sharePlayers(token)).map(async (p) => {
      const run = await d.store.getRun(p.runId);
      const progress = run ? await progressOf(d, share, run) : null;
      return {
        player: p.player,
        runId: p.runId,
        joinedAt: p.createdAt,
        played: progress?.played ?? 0,
        status: run?.status ?? null,
      };
    }),
  );
  return { ...share, players };
}

export async function listShares(d: ShareDeps, url: URL) {
  const items = await d.store.listShares(queryOf(url, envQuery));
  return { items: await Promise.all(items.map((s) => shareWithPlayers(d, s.token))) };
}

/** `GET /api/play/<token>`: what the link plays (nothing about who made it or who else plays). */
export async function playInfo(d: ShareDeps, token: string) {
  return publicShare(await openShare(d.store, token));
}

/**
 * `POST /api/play/<token>/join {player}`: the player's run (made the first time) and progress; the
 * answer sets the player's cookie (lib/security/request-policy.ts `shareCookie`).
 */
export function joinPlay(d: ShareDeps, req: Request, token: string): Promise<Response> {
  return respond(async () => {
    const share = await openShare(d.store, token);
    const { player } = await bodyOf(req, playerRequestSchema);
    const run = await joinShare(d, share, player);
    return Response.json(await progressOf(d, share, run), {
      headers: { ...noStore, "set-cookie": shareCookie(req.headers.get("host"), token) },
    });
  });
}

/** `POST /api/play/<token>/next {player}`: the current episode settled, the next one started. */
export async function nextPlay(d: ShareDeps, req: Request, token: string) {
  const share = await openShare(d.store, token);
  const { player } = await bodyOf(req, playerRequestSchema);
  const known = await d.store.sharePlayer(token, player);
  const run = known && (await d.store.getRun(known.runId));
  if (!run) throw new OrsError(404, `${player} has not joined this link yet`);
  return nextEpisode(d, share, run);
}
