// Helpers shared by the /api/trajectories route handlers (thin adapters over the store): the
// re-runs of a stored trajectory, list filters, in-flight steps merged into a snapshot, and the two
// answers an episode page reads (its session's trajectory, its live feed), also served to share-link
// players (their gate calls them outside a route wrapper, so they answer, never throw, a 404).
import "server-only";
import type { z } from "zod";
import { json, parseWith, readJsonBody } from "@/lib/http";
import { errorResponse, OrsError } from "@/lib/ors/protocol";
import type { SnapshotEvent } from "@/lib/trajectory/feed";
import { type Trajectory, type TrajectoryFilter, trajectoryFilterSchema } from "@/lib/trajectory/schema";
import type { TrajectoryStore } from "../store/types";
import type { LiveFeeds } from "./live";
import { liveSseResponse } from "./live-sse";
import type { Recorder } from "./recorder";

/** The 404 of a trajectory id the store does not hold. */
export function noTrajectory(id: string): OrsError {
  return new OrsError(404, `no trajectory with id "${id}"`);
}

/** The stored trajectory `id`; a 404 OrsError when there is none. */
export async function trajectoryOr404(store: TrajectoryStore, id: string): Promise<Trajectory> {
  const t = await store.get(id);
  if (!t) throw noTrajectory(id);
  return t;
}

/**
 * Answers a request that re-runs a stored trajectory against its server (fork, replay): the JSON
 * body checked by `schema`, the trajectory looked up, `run`'s result as JSON. A failed re-run is a
 * ReplayError, answered with its kind: the server unreachable, its own error, or a protocol
 * mismatch. The run gets the request's signal: a client that goes away stops it (its session is
 * deleted).
 */
export async function rerunTrajectory<T>(
  req: Request,
  id: string,
  store: TrajectoryStore,
  schema: z.ZodType<T>,
  run: (t: Trajectory, body: T, signal: AbortSignal) => Promise<unknown>,
): Promise<Response> {
  const body = await readJsonBody(req, schema);
  const t = await trajectoryOr404(store, id);
  return json(await run(t, body, req.signal));
}

/** The list/export filters of the query string; a 400 OrsError naming what is wrong. */
export function parseFilter(url: URL): TrajectoryFilter {
  const raw: Record<string, string> = {};
  for (const [k, v] of url.searchParams) if (v !== "") raw[k] = v;
  delete raw.download;
  delete raw.format; // the export's format (GET /api/trajectories/export), not a filter
  return parseWith(trajectoryFilterSchema.strict(), raw);
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
  return json(withInflight(t, d.recorder));
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
  if (!summary) return errorResponse(404, noTrajectory(id).detail);
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
    // A finished episode's session lives on: calls made after the end are still recorded and sent.
    closeOn: (e) => e.type === "ended" && e.end_reason !== "finished",
    closeAfterFirst: summary.end_reason != null && summary.end_reason !== "finished",
  });
}
