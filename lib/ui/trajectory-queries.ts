// Browser-side access to /api/trajectories: a key factory, queryOptions per resource, and the
// mutations' fetchers. Components never write raw keys or URLs.
import { queryOptions } from "@tanstack/react-query";
import { newEpisodeHref } from "@/lib/routes";
import type { TrajectoryDiff } from "@/lib/trajectory/diff";
import type { ForkResult, Trajectory, TrajectoryFilter, TrajectorySummary } from "@/lib/trajectory/schema";
import { ApiError, apiJson } from "./api-error";
import { fetchJsonOffThread } from "./off-thread";

export function filterToParams(f: TrajectoryFilter): URLSearchParams {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) {
    if (v === undefined || v === "" || v === null) continue;
    p.set(k, typeof v === "boolean" ? (v ? "1" : "0") : String(v));
  }
  return p;
}

export const trajectoryKeys = {
  all: ["trajectories"] as const,
  list: (f: TrajectoryFilter) => [...trajectoryKeys.all, "list", f] as const,
  live: () => [...trajectoryKeys.all, "live"] as const,
  one: (id: string) => [...trajectoryKeys.all, "one", id] as const,
  bySession: (server: string, sid: string) => [...trajectoryKeys.all, "session", server, sid] as const,
};

export function trajectoryListQuery(f: TrajectoryFilter) {
  return queryOptions({
    queryKey: trajectoryKeys.list(f),
    queryFn: async ({ signal }) =>
      apiJson<{ items: TrajectorySummary[]; total: number }>(
        await fetch(`/api/trajectories?${filterToParams(f)}`, { signal }),
      ),
    staleTime: 2_000,
  });
}

export function liveTrajectoriesQuery() {
  return queryOptions({
    queryKey: trajectoryKeys.live(),
    queryFn: async ({ signal }) =>
      apiJson<{ items: TrajectorySummary[] }>(await fetch("/api/trajectories/live", { signal })),
    staleTime: 1_000,
  });
}

export function trajectoryQuery(id: string) {
  return queryOptions({
    queryKey: trajectoryKeys.one(id),
    // Read and parsed off the main thread: a trajectory may hold megabytes of results.
    queryFn: async ({ signal }) => {
      const res = await fetchJsonOffThread(`/api/trajectories/${encodeURIComponent(id)}`, signal);
      if (res.status < 200 || res.status >= 300) {
        const body = res.body as { detail?: unknown } | null;
        const detail = typeof body?.detail === "string" ? body.detail : (res.text ?? `HTTP ${res.status}`);
        throw new ApiError(res.status, detail);
      }
      return res.body as Trajectory;
    },
    staleTime: 5_000,
  });
}

/** The newest trajectory of a session (the episode view reopens a live episode with it). */
export function sessionTrajectoryQuery(server: string, sid: string) {
  return queryOptions({
    queryKey: trajectoryKeys.bySession(server, sid),
    queryFn: async ({ signal }) =>
      apiJson<Trajectory>(
        await fetch(`/api/trajectories/by-session/${encodeURIComponent(server)}/${encodeURIComponent(sid)}`, {
          signal,
        }),
      ),
  });
}

/** What `POST /api/trajectories/<id>/fork` answers. */
export type ForkResponse = ForkResult;

export async function forkTrajectoryRequest(id: string, step: number): Promise<ForkResponse> {
  return apiJson(
    await fetch(`/api/trajectories/${encodeURIComponent(id)}/fork`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ step }),
    }),
  );
}

export interface ReplayResponse {
  trajectory_id: string;
  diff: Omit<TrajectoryDiff, "steps"> & { steps: { index: number; fields: string[] }[] };
}

export async function replayTrajectoryRequest(id: string): Promise<ReplayResponse> {
  return apiJson(
    await fetch(`/api/trajectories/${encodeURIComponent(id)}/replay`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
    }),
  );
}

/** Marks a trajectory golden (a reference `test` replays as a regression test) or unmarks it. */
export async function setGoldenRequest(
  id: string,
  golden: boolean,
): Promise<{ id: string; golden: boolean }> {
  return apiJson(
    await fetch(`/api/trajectories/${encodeURIComponent(id)}/golden`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ golden }),
    }),
  );
}

export async function importTrajectoriesRequest(
  text: string,
): Promise<{ imported: string[]; skipped: string[] }> {
  // Typed as JSON (the route reads JSON and JSONL alike): the app refuses untyped browser bodies.
  return apiJson(
    await fetch("/api/trajectories/import", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: text,
    }),
  );
}

export async function deleteTrajectoryRequest(id: string): Promise<void> {
  await apiJson(await fetch(`/api/trajectories/${encodeURIComponent(id)}`, { method: "DELETE" }));
}

export function exportUrl(f: TrajectoryFilter): string {
  const p = filterToParams({ ...f, limit: undefined, offset: undefined });
  return `/api/trajectories/export?${p}`;
}

export function downloadUrl(id: string): string {
  return `/api/trajectories/${encodeURIComponent(id)}?download=1`;
}

/** One trajectory as a self-contained HTML file to send (lib/episodes/html-export.ts). */
export function htmlExportUrl(id: string): string {
  return `/api/trajectories/${encodeURIComponent(id)}/export?format=html`;
}

/** The trajectories matching the filters as one self-contained HTML file. */
export function htmlListExportUrl(f: TrajectoryFilter): string {
  const p = filterToParams({ ...f, limit: undefined, offset: undefined });
  p.set("format", "html");
  return `/api/trajectories/export?${p}`;
}

/** Every golden trajectory as JSONL: the file `npx ors-playground test` replays. */
export function exportGoldenUrl(): string {
  return exportUrl({ golden: true });
}

/** The trajectory as a Playwright spec (a download). */
export function playwrightUrl(id: string): string {
  return `/api/trajectories/${encodeURIComponent(id)}/playwright`;
}

/**
 * Whether "Fork at step N" can work on a trajectory, and why not: fork replays the episode's
 * actions 1..N on its task (lib/episodes/replay.ts), so it needs a known task, and N must be one of
 * the episode's own steps, not a call an outside client made after it had finished (the server
 * would refuse it with a 400 the user cannot act on).
 */
export function forkability(
  t: Pick<Trajectory, "task" | "steps">,
  step: number | null,
): { ok: true } | { ok: false; reason: string } {
  if (!t.task) return { ok: false, reason: "Fork needs a known task (this episode was recorded mid-way)." };
  const actions = t.steps.filter((s) => !s.after_end).length;
  if (step == null || actions === 0) return { ok: false, reason: "Fork needs at least one step." };
  if (step > actions) {
    return {
      ok: false,
      reason: `Step ${step} was called after the episode had finished: it is not part of the episode. Fork at one of its steps (${actions === 1 ? "step 1" : `1 to ${actions}`}).`,
    };
  }
  return { ok: true };
}

/** The "new episode" URL on the same task as a recorded episode (restart): see lib/routes.ts. */
export function restartHref(t: Pick<Trajectory, "id" | "server" | "env" | "task">): string | null {
  if (!t.env || !t.task) return null;
  return newEpisodeHref(t.server, t.env, t.task, t.id);
}
