// Small helpers shared by the /api/trajectories route handlers (thin adapters over the store):
// bounded JSON bodies, list filters, in-flight steps merged into a snapshot, and the two answers an
// episode page reads (its session's trajectory, its live feed), also served to share-link players.
import "server-only";
import type { z } from "zod";
import { describeZodError, errorResponse } from "@/lib/ors/protocol";
import { readWithin } from "@/lib/ors/protocol/body";
import type { SnapshotEvent } from "@/lib/trajectory/feed";
import { type Trajectory, type TrajectoryFilter, trajectoryFilterSchema } from "@/lib/trajectory/schema";
import type { TrajectoryStore } from "../store/types";
import type { LiveFeeds } from "./live";
import { liveSseResponse } from "./live-sse";
import type { Recorder } from "./recorder";
import { ReplayError } from "./replay";

export const noStore = { "Cache-Control": "no-store" };

/** Thrown by readBody: the answer to give instead. */
export class BodyError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(detail);
    this.name = "BodyError";
  }
}

/** Reads a request body as text, refusing more than `limit` bytes (413) without buffering them. */
export async function readBody(req: Request, limit: number): Promise<string> {
  const bytes = await readWithin(req.body, limit, { declaredLength: req.headers.get("content-length") });
  if (bytes === null)
    throw new BodyError(413, `the body is larger than ${Math.round(limit / 1024 / 1024)} MB`);
  return new TextDecoder().decode(bytes);
}

/** Reads a small JSON object body (empty means `{}`); a 400 BodyError names what is wrong. */
export async function readJsonObject(req: Request, limit = 64 * 1024): Promise<unknown> {
  const text = await readBody(req, limit);
  if (!text.trim()) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new BodyError(400, `body: malformed JSON (${e instanceof Error ? e.message : String(e)})`);
  }
}

/**
 * Answers a request that re-runs a stored trajectory against its server (fork, replay): the JSON
 * body checked by `schema`, the trajectory looked up, `run`'s result as JSON. A failed re-run
 * answers with its kind: the server unreachable, its own error, or a protocol mismatch. The run
 * gets the request's signal: a client that goes away stops it (its session is deleted).
 */
export async function rerunTrajectory<T>(
  req: Request,
  id: string,
  store: TrajectoryStore,
  schema: z.ZodType<T>,
  run: (t: Trajectory, body: T, signal: AbortSignal) => Promise<unknown>,
): Promise<Response> {
  try {
    const body = schema.safeParse(await readJsonObject(req));
    if (!body.success) return errorResponse(400, describeZodError(body.error));
    const t = await store.get(id);
    if (!t) return errorResponse(404, `no trajectory with id "${id}"`);
    return Response.json(await run(t, body.data, req.signal));
  } catch (e) {
    // Nobody reads this answer; it keeps the abandoned run out of the error log.
    if (req.signal.aborted) return errorResponse(499, "the client went away: the run stopped");
    if (e instanceof BodyError) return errorResponse(e.status, e.detail);
    if (e instanceof ReplayError) return errorResponse(e.status, e.message, undefined, { kind: e.kind });
    throw e;
  }
}

/** Parses the list/export filters from the query string, or returns a 400 response. */
export function parseFilter(
  url: URL,
): { ok: true; filter: TrajectoryFilter } | { ok: false; response: Response } {
  const raw: Record<string, string> = {};
  for (const [k, v] of url.searchParams) if (v !== "") raw[k] = v;
  delete raw.download;
  delete raw.format; // the export's format (GET /api/trajectories/export), not a filter
  const r = trajectoryFilterSchema.strict().safeParse(raw);
  if (!r.success) return { ok: false, response: errorResponse(400, describeZodError(r.error)) };
  return { ok: true, filter: r.data };
}

/** The trajectory with the in-flight steps (and their frames so far) merged in. */
export function withInflight(t: Trajectory, recorder: Recorder): Trajectory {
  const inflight = recorder.inflight(t.id);
  if (!inflight.length) return t;
  const steps = t.steps.map((s) => inflight.find((f) => f.index === s.index) ?? s);
  for (const f of inflight) if (!steps.some((s) => s.index === f.index)) steps.push(f);
  steps.sort((a, b) => a.index - b.index);
  return { ...t, steps };
}

/** `GET /api/trajectories/by-session/<server>/<sid>`: the newest trajectory of a session, in-flight steps in. */
export async function sessionTrajectoryResponse(
  d: { store: TrajectoryStore; recorder: Recorder },
  server: string,
  sid: string,
): Promise<Response> {
  await d.recorder.idle();
  const summary = await d.store.findBySession(server, sid);
  const t = summary ? await d.store.get(summary.id) : null;
  if (!t) return errorResponse(404, `no recorded episode for session "${sid}" on server "${server}"`);
  return Response.json(withInflight(t, d.recorder), { headers: noStore });
}

/**
 * `GET /api/trajectories/<id>/events`: the episode's live feed — a snapshot, then its changes —
 * closing after it ends, except a finished one, whose session may still take calls (after the end).
 */
export async function trajectoryEventsResponse(
  req: Request,
  d: { store: TrajectoryStore; recorder: Recorder; live: LiveFeeds },
  id: string,
): Promise<Response> {
  const { store: s, recorder, live } = d;
  const summary = await s.summary(id);
  if (!summary) return errorResponse(404, `no trajectory with id "${id}"`);
  return liveSseResponse(req, live, id, {
    first: async () => {
      // Changes recorded before the snapshot is read are in it; later ones follow as events.
      await recorder.idle();
      const [t, now] = await Promise.all([s.get(id), s.summary(id)]);
      if (!t || !now) return [];
      const snapshot: SnapshotEvent = {
        type: "snapshot",
        id,
        trajectory: withInflight(t, recorder),
        last_activity_at: now.last_activity_at,
        inflight: await recorder.inflightIndices(id),
      };
      return [{ event: "snapshot", data: snapshot }];
    },
    closeOn: (e) => e.type === "ended" && e.end_reason !== "finished",
    closeAfterFirst: summary.end_reason != null && summary.end_reason !== "finished",
  });
}
