// Browser-side access to /api/trajectories: a key factory, queryOptions per resource, and the
// mutations' fetchers. Components never write raw keys or URLs.
import { queryOptions } from "@tanstack/react-query";
import type { TrajectoryDiff } from "@/lib/episodes/diff";
import type { ForkResult, Trajectory, TrajectoryFilter, TrajectorySummary } from "@/lib/episodes/schema";
import { apiJson } from "./api-error";

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
    queryFn: async ({ signal }) =>
      apiJson<Trajectory>(await fetch(`/api/trajectories/${encodeURIComponent(id)}`, { signal })),
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

/** Every golden trajectory as JSONL: the file `npx ors-playground test` replays. */
export function exportGoldenUrl(): string {
  return exportUrl({ golden: true });
}

/** The trajectory as a Playwright spec (a download). */
export function playwrightUrl(id: string): string {
  return `/api/trajectories/${encodeURIComponent(id)}/playwright`;
}

/** The episode page's "new episode" URL on the same task (restart). */
export function restartHref(t: Pick<Trajectory, "server" | "env" | "task">): string | null {
  if (!t.env || !t.task) return null;
  const base = `/s/${encodeURIComponent(t.server)}/e/${encodeURIComponent(t.env)}/episode/new`;
  if ("split" in t.task) return `${base}?split=${encodeURIComponent(t.task.split)}&task=${t.task.index}`;
  // The new-episode page takes a task_spec from sessionStorage (see `rememberSpecForRestart`).
  return `${base}?spec=1`;
}

export function episodeHref(server: string, env: string, sid: string): string {
  return `/s/${encodeURIComponent(server)}/e/${encodeURIComponent(env)}/episode/${encodeURIComponent(sid)}`;
}
