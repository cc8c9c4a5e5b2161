// Browser-side access to runs and model endpoints (docs/runs.md "HTTP API"): a key factory,
// queryOptions per resource, one hook each, and the mutations. Components never write raw keys or
// URLs; a run's live progress (SSE) stays out of the cache (lib/ui/use-run-progress.ts).
import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { RunComparison, RunList, RunSummaryResponse } from "@/lib/runs/http";
import type { ModelTurnRequest, ModelTurnResponse } from "@/lib/runs/model-turn";
import type { PublicModelEndpoint } from "@/lib/runs/models";
import type { RunRequest } from "@/lib/runs/spec";
import type { RunStatus } from "@/lib/store/types";
import { apiJson } from "./api-error";

export type { RunComparison, RunListItem, RunSummaryResponse } from "@/lib/runs/http";
export type { ModelTurnResponse } from "@/lib/runs/model-turn";

export interface RunListFilter {
  server?: string;
  env?: string;
  status?: RunStatus;
  tag?: string;
  limit?: number;
  offset?: number;
}

/** Statuses after which nothing changes by itself (resume starts a run again). */
export const FINAL_RUN_STATUSES: readonly RunStatus[] = ["done", "cancelled", "interrupted", "failed"];
export const isRunActive = (status: RunStatus | undefined) => status === "queued" || status === "running";

export const runKeys = {
  all: ["runs"] as const,
  lists: () => [...runKeys.all, "list"] as const,
  list: (f: RunListFilter) => [...runKeys.lists(), f] as const,
  one: (id: string) => [...runKeys.all, "one", id] as const,
  compare: (a: string, b: string) => [...runKeys.all, "compare", a, b] as const,
};

export const modelKeys = {
  all: ["models"] as const,
};

function listParams(f: RunListFilter): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v !== undefined && v !== "") p.set(k, String(v));
  return p.toString();
}

export function runsQuery(f: RunListFilter = {}) {
  return queryOptions({
    queryKey: runKeys.list(f),
    queryFn: async ({ signal }) => apiJson<RunList>(await fetch(`/api/runs?${listParams(f)}`, { signal })),
    staleTime: 2_000,
    // The list follows the runs that play (counts, status) until none does.
    refetchInterval: (q) => (q.state.data?.items.some((r) => isRunActive(r.status)) ? 2_000 : false),
    placeholderData: keepPreviousData,
  });
}

/**
 * How often a playing run's summary is read again: its size in ms (a 10,000-episode run's summary
 * is a megabyte and a few hundred ms of the server's time), between 1.5 and 15 s. The counters,
 * rate and time left come live from its events meanwhile (lib/ui/use-run-progress.ts).
 */
export function summaryRefreshMs(episodes: number): number {
  return Math.min(15_000, Math.max(1_500, episodes));
}

/** A run's summary, read again while it plays (see summaryRefreshMs). */
export function runQuery(id: string) {
  return queryOptions({
    queryKey: runKeys.one(id),
    queryFn: async ({ signal }) =>
      apiJson<RunSummaryResponse>(await fetch(`/api/runs/${encodeURIComponent(id)}`, { signal })),
    staleTime: 1_000,
    refetchInterval: (q) =>
      isRunActive(q.state.data?.status) ? summaryRefreshMs(q.state.data?.episodes ?? 0) * 2 : false,
  });
}

export function runComparisonQuery(a: string, b: string) {
  return queryOptions({
    queryKey: runKeys.compare(a, b),
    queryFn: async ({ signal }) =>
      apiJson<RunComparison>(
        await fetch(`/api/runs/compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`, { signal }),
      ),
    staleTime: 5_000,
  });
}

export function modelsQuery() {
  return queryOptions({
    queryKey: modelKeys.all,
    queryFn: async ({ signal }) =>
      apiJson<{ items: PublicModelEndpoint[] }>(await fetch("/api/models", { signal })),
    select: (d) => d.items,
    staleTime: 60_000,
  });
}

export function useRuns(f: RunListFilter = {}) {
  return useQuery(runsQuery(f));
}

export function useRun(id: string) {
  return useQuery(runQuery(id));
}

export function useRunComparison(a: string, b: string) {
  return useQuery({ ...runComparisonQuery(a, b), enabled: !!a && !!b });
}

export function useModels() {
  return useQuery(modelsQuery());
}

async function postJson<T>(url: string, body: unknown = {}): Promise<T> {
  return apiJson<T>(
    await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
}

export function useStartRun() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (request: RunRequest) => postJson<{ id: string; status: RunStatus }>("/api/runs", request),
    onSuccess: () => qc.invalidateQueries({ queryKey: runKeys.lists() }),
  });
}

/** Cancel or resume a run; both refresh the run and the lists. */
export function useRunAction(id: string, action: "cancel" | "resume") {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () =>
      postJson<{ id: string; status: RunStatus }>(`/api/runs/${encodeURIComponent(id)}/${action}`),
    onSettled: () => qc.invalidateQueries({ queryKey: runKeys.all }),
  });
}

export function useDeleteRun() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) =>
      apiJson<{ deleted: string }>(await fetch(`/api/runs/${encodeURIComponent(id)}`, { method: "DELETE" })),
    onSuccess: (_d, id) => {
      qc.removeQueries({ queryKey: runKeys.one(id) });
      return qc.invalidateQueries({ queryKey: runKeys.lists() });
    },
  });
}

/** One model turn for a live episode (its trajectory): the proposed calls, no tool called. */
export async function modelTurnRequest(
  trajectoryId: string,
  body: ModelTurnRequest,
  signal?: AbortSignal,
): Promise<ModelTurnResponse> {
  return apiJson(
    await fetch(`/api/trajectories/${encodeURIComponent(trajectoryId)}/model-turn`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      signal,
    }),
  );
}

export type RunExportFormat = "chat-jsonl" | "atif" | "jsonl";

export function runExportUrl(id: string, format: RunExportFormat): string {
  return `/api/runs/${encodeURIComponent(id)}/export?format=${format}`;
}
