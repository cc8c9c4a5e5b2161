// Small helpers shared by the /api/trajectories route handlers (thin adapters over the store).
import "server-only";
import { type Trajectory, type TrajectoryFilter, trajectoryFilterSchema } from "@/lib/episodes/schema";
import { describeZodError } from "@/lib/ors/protocol";
import type { Recorder } from "./recorder";

export function jsonError(status: number, detail: string): Response {
  return Response.json({ detail }, { status, headers: { "Cache-Control": "no-store" } });
}

/** Parses the list/export filters from the query string, or returns a 400 response. */
export function parseFilter(
  url: URL,
): { ok: true; filter: TrajectoryFilter } | { ok: false; response: Response } {
  const raw: Record<string, string> = {};
  for (const [k, v] of url.searchParams) if (v !== "") raw[k] = v;
  delete raw.download;
  const r = trajectoryFilterSchema.strict().safeParse(raw);
  if (!r.success) return { ok: false, response: jsonError(400, describeZodError(r.error)) };
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

export const noStore = { "Cache-Control": "no-store" };
