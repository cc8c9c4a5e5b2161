// Browser-side access to an episode's protocol log (`GET /api/trajectories/<id>/exchanges`: every
// request of its session through the relay, with raw bodies, secrets masked): one query per
// episode; the live feed's `exchange` events (summaries) appended to it, their bodies fetched when
// one is opened. Loaded with the episode page (its feed appends): no zod here (see
// protocol-log-replay.ts for sending a logged call again).
import { type QueryClient, queryOptions } from "@tanstack/react-query";
import type {
  ExchangeSide,
  ExchangeSummary,
  ProtocolExchange,
  TrajectoryStep,
} from "@/lib/trajectory/schema";
import { apiJson } from "./api-error";

/** One request of the session and its answer, as the API lists it (the schema's type: erased). */
export type LoggedExchange = ProtocolExchange;
export type { ExchangeSide, ExchangeSummary };

/** An exchange of the log as the page holds it: whole, or a summary from the live feed. */
export type LogEntry = LoggedExchange | ExchangeSummary;

export interface ProtocolLogData {
  items: LogEntry[];
  /** Exchanges left out beyond the log's caps (the oldest kept). */
  dropped: number;
}

/** Whether the entry has its bodies (not only the live feed's summary). */
export function isWhole(e: LogEntry): e is LoggedExchange {
  return "request" in e && "response" in e;
}

export const protocolLogKeys = {
  all: ["protocol-log"] as const,
  of: (trajectoryId: string) => [...protocolLogKeys.all, trajectoryId] as const,
};

const exchangesUrl = (id: string, after = 0) =>
  `/api/trajectories/${encodeURIComponent(id)}/exchanges${after > 0 ? `?after=${after}` : ""}`;

/** Entries by seq, later ones replacing earlier ones of the same seq (a whole one a summary). */
export function mergeEntries(items: readonly LogEntry[], more: readonly LogEntry[]): LogEntry[] {
  const bySeq = new Map<number, LogEntry>();
  for (const e of items) bySeq.set(e.seq, e);
  for (const e of more) {
    const had = bySeq.get(e.seq);
    // A summary never replaces the whole exchange it summarises.
    if (!had || isWhole(e) || !isWhole(had)) bySeq.set(e.seq, e);
  }
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

/** The whole protocol log of an episode (live events append to it: `appendExchange`). */
export function protocolLogQuery(trajectoryId: string) {
  return queryOptions({
    queryKey: protocolLogKeys.of(trajectoryId),
    queryFn: async ({ signal }): Promise<ProtocolLogData> => {
      const data = await apiJson<ProtocolLogData>(await fetch(exchangesUrl(trajectoryId), { signal }));
      return { items: mergeEntries([], data.items), dropped: data.dropped };
    },
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });
}

/** The `exchange` event of an episode's live feed, as it arrives (unknown shapes are not one). */
export function readExchangeEvent(data: unknown): (ExchangeSummary & { id: string }) | null {
  const e = data as Record<string, unknown> | null;
  if (e?.type !== "exchange" || typeof e.id !== "string" || typeof e.seq !== "number") return null;
  return {
    id: e.id,
    seq: e.seq,
    at: Number(e.at),
    ms: Number(e.ms),
    method: String(e.method),
    path: String(e.path),
    status: Number(e.status),
  };
}

/** Appends a live summary to the episode's log, when the page has loaded it (else it loads whole later). */
export function appendExchange(qc: QueryClient, trajectoryId: string, summary: ExchangeSummary): void {
  qc.setQueryData<ProtocolLogData>(protocolLogKeys.of(trajectoryId), (old) =>
    old ? { ...old, items: mergeEntries(old.items, [summary]) } : old,
  );
}

const filling = new Map<string, Promise<void>>();

/**
 * Fetches the bodies of the entries known only by their summary (those after the last whole one),
 * once at a time per episode, and merges them into the log.
 */
export function fillExchanges(qc: QueryClient, trajectoryId: string): Promise<void> {
  const running = filling.get(trajectoryId);
  if (running) return running;
  const key = protocolLogKeys.of(trajectoryId);
  const data = qc.getQueryData<ProtocolLogData>(key);
  const after = Math.max(0, ...(data?.items.filter(isWhole).map((e) => e.seq) ?? []));
  const done = fetch(exchangesUrl(trajectoryId, after))
    .then((res) => apiJson<ProtocolLogData>(res))
    .then((more) => {
      qc.setQueryData<ProtocolLogData>(key, (old) =>
        old ? { items: mergeEntries(old.items, more.items), dropped: more.dropped } : old,
      );
    })
    .finally(() => filling.delete(trajectoryId));
  filling.set(trajectoryId, done);
  return done;
}

/** Where a step came from when it replays a logged call (FORMAT.md: the step's `origin`), else null. */
export function replayOriginOf(step: TrajectoryStep): { exchange: number; edited: boolean } | null {
  const o = (step as { origin?: unknown }).origin as
    | { kind?: unknown; exchange?: unknown; edited?: unknown }
    | undefined;
  if (o?.kind !== "replay" || typeof o.exchange !== "number") return null;
  return { exchange: o.exchange, edited: o.edited === true };
}

/** The mark of a replayed step: "replayed from #n", with ", edited" when its input was changed. */
export function replayedLabel(origin: { exchange: number; edited: boolean }): string {
  return `replayed from #${origin.exchange}${origin.edited ? ", edited" : ""}`;
}

/** A body as the log shows it: JSON laid out (when it is whole JSON), anything else as it is. */
export function displayBody(side: ExchangeSide, contentType = ""): string {
  if (side.body === "") return "";
  const looksJson = /json/i.test(contentType) || /^\s*[[{]/.test(side.body);
  if (!looksJson || side.truncated) return side.body;
  try {
    return JSON.stringify(JSON.parse(side.body), null, 2);
  } catch {
    return side.body;
  }
}

/** A status's badge colour: 2xx green, 4xx amber, 5xx and none (0: no answer) red, others plain. */
export function statusTone(status: number): "green" | "amber" | "red" | "neutral" {
  if (status >= 200 && status < 300) return "green";
  if (status >= 500 || status === 0) return "red";
  return status >= 400 ? "amber" : "neutral";
}

/** When a request came, as a time of day to the millisecond. */
export function formatClock(at: number): string {
  const d = new Date(at);
  return `${d.toLocaleTimeString(undefined, { hour12: false })}.${String(d.getMilliseconds()).padStart(3, "0")}`;
}

/** How long a request took: ms under a second, else seconds. */
export function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}
