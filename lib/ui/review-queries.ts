// Browser-side access to reviews and baselines (docs/review.md "HTTP API"): a key factory,
// queryOptions per resource, the mutations, and the URLs of files the API makes. Components never
// write raw keys or URLs.
import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import type { JsonObject } from "@/lib/ors/protocol";
import type { Leaderboard } from "@/lib/review/leaderboard";
import type { AgreementReport, ReviewEpisode } from "@/lib/review/queues";
import type { PlayerProgress } from "@/lib/review/share";
import type { LabelSetRequest, QueueRequest, ShareRequest } from "@/lib/review/spec";
import type { Label, LabelSet, QueueProgress, ReviewQueue, ShareLink } from "@/lib/store/types";
import { apiJson } from "./api-error";
import { trajectoryKeys } from "./trajectory-queries";

export type { Leaderboard, LeaderboardRow } from "@/lib/review/leaderboard";
export type { AgreementReport, JudgedEpisode, ReviewEpisode } from "@/lib/review/queues";
export type { PlayEpisode, PlayerProgress } from "@/lib/review/share";

export type QueueWithProgress = ReviewQueue & { progress: QueueProgress[] };
export type ShareWithPlayers = ShareLink & {
  players: { player: string; runId: string; joinedAt: number; played: number; status: string | null }[];
};
/** What a share link tells its player. */
export interface PublicShare {
  env: string;
  split: string;
  tasks: number;
  expiresAt: number | null;
}

const seg = encodeURIComponent;

export const reviewKeys = {
  all: ["review"] as const,
  labelSets: () => [...reviewKeys.all, "label-sets"] as const,
  queues: () => [...reviewKeys.all, "queues"] as const,
  queue: (id: string) => [...reviewKeys.all, "queue", id] as const,
  episode: (id: string, reviewer: string, position: number) =>
    [...reviewKeys.queue(id), "episode", reviewer, position] as const,
  agreement: (id: string) => [...reviewKeys.queue(id), "agreement"] as const,
  shares: () => [...reviewKeys.all, "shares"] as const,
  leaderboard: (server: string, env: string, split: string) =>
    [...reviewKeys.all, "leaderboard", server, env, split] as const,
  play: (token: string) => ["play", token] as const,
};

async function send<T>(method: string, url: string, body?: unknown): Promise<T> {
  return apiJson<T>(
    await fetch(url, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }),
    }),
  );
}

const get = async <T>(url: string, signal: AbortSignal) => apiJson<T>(await fetch(url, { signal }));

/** The query of `url`'s JSON under `queryKey`, fresh for `staleTime` ms (the client's default when not given). */
function getQuery<T>(queryKey: readonly unknown[], url: string, staleTime?: number) {
  return queryOptions({
    queryKey,
    queryFn: ({ signal }) => get<T>(url, signal),
    ...(staleTime === undefined ? {} : { staleTime }),
  });
}

export function labelSetsQuery() {
  return getQuery<{ items: LabelSet[] }>(reviewKeys.labelSets(), "/api/review/label-sets");
}

export function queuesQuery() {
  return getQuery<{ items: QueueWithProgress[] }>(reviewKeys.queues(), "/api/review/queues", 2_000);
}

export function reviewEpisodeQuery(id: string, reviewer: string, position: number) {
  return getQuery<ReviewEpisode>(
    reviewKeys.episode(id, reviewer, position),
    `/api/review/queues/${seg(id)}/episodes/${position}?reviewer=${seg(reviewer)}`,
    0,
  );
}

export function queueQuery(id: string) {
  return getQuery<
    QueueWithProgress & {
      items: { position: number; trajectoryId: string; reviewer: string; labelled: boolean }[];
    }
  >(reviewKeys.queue(id), `/api/review/queues/${seg(id)}`, 0);
}

export function agreementQuery(id: string) {
  return getQuery<AgreementReport>(reviewKeys.agreement(id), `/api/review/queues/${seg(id)}/agreement`, 0);
}

export function sharesQuery() {
  return getQuery<{ items: ShareWithPlayers[] }>(reviewKeys.shares(), "/api/shares", 2_000);
}

export function leaderboardQuery(server: string, env: string, split: string) {
  return getQuery<Leaderboard>(
    reviewKeys.leaderboard(server, env, split),
    leaderboardApiHref(server, env, split),
  );
}

/** `GET /api/leaderboards/<server>/<env>/<split>` (`html`: the leaderboard as one HTML file). */
export function leaderboardApiHref(server: string, env: string, split: string, html = false): string {
  return `/api/leaderboards/${seg(server)}/${seg(env)}/${seg(split)}${html ? "?format=html" : ""}`;
}

/** A run's report as one HTML file. */
export function runReportHref(id: string): string {
  return `/api/runs/${seg(id)}/report`;
}

/** The API of a share link, answering its player's episode page (lib/ui/api-base.ts). */
export function playApiBase(token: string): string {
  return `/api/play/${seg(token)}`;
}

export function playInfoQuery(token: string) {
  return getQuery<PublicShare>(reviewKeys.play(token), playApiBase(token), Number.POSITIVE_INFINITY);
}

/** A mutation that sends its variables with `request`, then refreshes the queries under `invalidates`. */
function useSending<V = void, T = unknown>(
  request: (variables: V) => Promise<T>,
  invalidates: readonly unknown[],
) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: request,
    onSuccess: () => qc.invalidateQueries({ queryKey: invalidates }),
  });
}

export function useCreateLabelSet() {
  return useSending(
    (body: LabelSetRequest) => send<LabelSet>("POST", "/api/review/label-sets", body),
    reviewKeys.labelSets(),
  );
}

export function useCreateQueue() {
  return useSending(
    (body: QueueRequest) => send<QueueWithProgress>("POST", "/api/review/queues", body),
    reviewKeys.queues(),
  );
}

export function usePutLabel(queueId: string) {
  return useSending(
    (body: {
      labelSet: string;
      trajectoryId: string;
      step: number | null;
      reviewer: string;
      value: JsonObject;
    }) => send<Label>("PUT", "/api/review/labels", body),
    reviewKeys.queue(queueId),
  );
}

export function useGoldenFalsePositives(queueId: string) {
  return useSending(
    () =>
      send<{ golden: { from: string; id: string; reward: number }[] }>(
        "POST",
        `/api/review/queues/${seg(queueId)}/golden`,
      ),
    trajectoryKeys.all,
  );
}

export function useCreateShare() {
  return useSending(
    (body: ShareRequest) => send<ShareLink>("POST", "/api/shares", body),
    reviewKeys.shares(),
  );
}

export function useRevokeShare() {
  return useSending(
    (token: string) => send<{ revoked: string }>("DELETE", `/api/shares/${seg(token)}`),
    reviewKeys.shares(),
  );
}

/** A player joining a link, and moving to their next task: their progress either way. */
export function usePlayerMove(token: string, move: "join" | "next") {
  return useMutation({
    mutationFn: (player: string) => send<PlayerProgress>("POST", `${playApiBase(token)}/${move}`, { player }),
  });
}
