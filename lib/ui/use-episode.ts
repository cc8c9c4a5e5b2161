// Hooks of one live episode: its request/response resources through TanStack Query (prompt, the
// session's tools), start and end, keep-alive while the page is visible, and reopening after a
// reload (the recorded trajectory from the server, else this tab's sessionStorage).
"use client";

import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import type { Trajectory } from "@/lib/episodes/schema";
import type { OrsClient } from "@/lib/ors/client";
// The error type and keep-alive come without the client (and its zod schemas), which loads on demand.
import { OrsClientError } from "@/lib/ors/client/errors";
import { startKeepAlive } from "@/lib/ors/client/keep-alive";
import type { Block, JsonObject, Secrets, ToolSpec } from "@/lib/ors/protocol";
import {
  type EpisodeEnd,
  type EpisodeEndReason,
  type EpisodeSnapshot,
  type EpisodeState,
  type EpisodeTask,
  SESSION_IDLE_MS,
  type Step,
  snapshotOf,
  useEpisodeStoreApi,
} from "./episode-store";
import { loadOrsClient } from "./ors-loader";
import { orsKeys } from "./query-keys";

/** Keep-alive interval while the page is visible (spec: the reference client pings every 10 s). */
export const KEEP_ALIVE_MS = 10_000;

// ---- URLs ----

export function episodeUrl(server: string, env: string, sid: string, step?: number): string {
  const base = `/s/${encodeURIComponent(server)}/e/${encodeURIComponent(env)}/episode/${encodeURIComponent(sid)}`;
  return step ? `${base}?step=${step}` : base;
}

/** The "start an episode" page for the same task: split+index in the URL; a task spec via `stashTaskSpec`. */
export function newEpisodeUrl(server: string, env: string, task?: EpisodeTask | null): string {
  const base = `/s/${encodeURIComponent(server)}/e/${encodeURIComponent(env)}/episode/new`;
  if (!task) return base;
  if ("split" in task) return `${base}?split=${encodeURIComponent(task.split)}&task=${task.index}`;
  return `${base}?spec=1`;
}

/** Hands a task spec to the new-episode page through this tab's sessionStorage (not the URL). */
export function stashTaskSpec(server: string, env: string, task?: EpisodeTask | null): void {
  if (!task || !("task_spec" in task)) return;
  try {
    sessionStorage.setItem(draftSpecKey(server, env), JSON.stringify(task.task_spec, null, 2));
  } catch {
    // storage full or disabled: the editor starts empty
  }
}

/** Where the new-episode page keeps a task_spec draft (sessionStorage; never secrets). */
export function draftSpecKey(server: string, env: string): string {
  return `ors-task-spec:${server}:${env}`;
}

// ---- Errors ----

/** A readable message of any error (the server's `detail` for HTTP errors). */
export function errorMessage(err: unknown): string {
  if (err instanceof OrsClientError) {
    const what =
      err.kind === "unreachable"
        ? "Server unreachable"
        : err.kind === "timeout"
          ? "Timed out"
          : err.kind === "not-ors"
            ? "Not an ORS answer"
            : err.kind === "stream"
              ? "Stream failed"
              : `HTTP ${err.status}`;
    return `${what}: ${err.detail}`;
  }
  return err instanceof Error ? err.message : String(err);
}

/**
 * How a failed session request ends the episode, if it does: 404/410 mean the server no longer has
 * the session — `expired` when it was idle past the limit, else `lost` (restart, deleted elsewhere).
 * A 404 of /call that names a tool (unknown tool) does not end the episode.
 */
export function sessionEndFor(err: unknown, lastRequestAt: number | null): Omit<EpisodeEnd, "at"> | null {
  if (!(err instanceof OrsClientError) || err.kind !== "http") return null;
  if (err.status !== 404 && err.status !== 410) return null;
  if (err.status === 404 && /tool/i.test(err.detail) && !/session/i.test(err.detail)) return null;
  const idle = lastRequestAt === null ? 0 : Date.now() - lastRequestAt;
  if (err.status === 404 && idle >= SESSION_IDLE_MS - 5_000) {
    return {
      reason: "expired",
      detail: `No request for ${Math.round(idle / 60_000)} min: the server expired the session.`,
    };
  }
  return {
    reason: "lost",
    detail:
      err.status === 410
        ? `The session was deleted (another tab or client ended it). ${err.detail}`
        : `The server no longer knows this session (it restarted, or the session was removed). ${err.detail}`,
  };
}

// ---- Queries (request/response resources; keys from the shell's factory) ----

export function promptQuery(server: string, env: string, sid: string) {
  return queryOptions({
    queryKey: orsKeys.prompt(server, env, sid),
    queryFn: async ({ signal }) => (await loadOrsClient(server)).prompt(env, sid, { signal }),
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });
}

export type SessionTools = { tools: ToolSpec[]; source: "task_tools" | "tools"; fallbackReason?: string };

/** The session's tools from /{env}/task_tools, falling back to /{env}/tools when a server lacks it. */
export function sessionToolsQuery(server: string, env: string, sid: string) {
  return queryOptions({
    queryKey: orsKeys.taskTools(server, env, sid),
    queryFn: async ({ signal }): Promise<SessionTools> => {
      const client = await loadOrsClient(server);
      try {
        return { tools: (await client.taskTools(env, sid, { signal })).tools, source: "task_tools" };
      } catch (err) {
        const missing =
          err instanceof OrsClientError &&
          (err.kind === "not-ors" ||
            (err.kind === "http" && [404, 405, 501].includes(err.status) && !/session/i.test(err.detail)));
        if (!missing) throw err;
        return {
          tools: (await client.tools(env, { signal })).tools,
          source: "tools",
          fallbackReason: errorMessage(err),
        };
      }
    },
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });
}

/** The prompt blocks; a 404/410 ends the episode as lost/expired. */
export function usePrompt(enabled = true) {
  const store = useEpisodeStoreApi();
  const { server, env, sid } = store.getState();
  const q = useQuery({ ...promptQuery(server, env, sid), enabled });
  useSessionErrorEnds(q.error);
  useTouchOnSuccess(q.dataUpdatedAt);
  return q;
}

export function useSessionTools(enabled = true) {
  const store = useEpisodeStoreApi();
  const { server, env, sid } = store.getState();
  const q = useQuery({ ...sessionToolsQuery(server, env, sid), enabled });
  useSessionErrorEnds(q.error);
  useTouchOnSuccess(q.dataUpdatedAt);
  return q;
}

function useSessionErrorEnds(error: unknown) {
  const store = useEpisodeStoreApi();
  useEffect(() => {
    if (!error) return;
    const s = store.getState();
    const end = sessionEndFor(error, s.lastRequestAt);
    if (end) s.endEpisode(end.reason, end.detail);
  }, [error, store]);
}

function useTouchOnSuccess(at: number) {
  const store = useEpisodeStoreApi();
  useEffect(() => {
    if (at) store.getState().touch(at);
  }, [at, store]);
}

// ---- Start ----

export interface StartEpisodeInput {
  task: EpisodeTask;
  /** Kept in memory only for this request: never stored, never put in a URL. */
  secrets?: Secrets;
}

/**
 * Starts an episode: /create_session, /create, then /{env}/prompt (which waits for the
 * environment's setup, so a failing setup is reported here, on the start page). The prompt is
 * seeded into the query cache and the episode record into this tab's sessionStorage. `onSession`
 * hears the new session id at once (to prefetch the episode page while /create runs).
 */
export function useStartEpisode(
  server: string,
  env: string,
  options: { onSession?: (sid: string) => void } = {},
) {
  const { onSession } = options;
  const qc = useQueryClient();
  return useMutation({
    // Drop the mutation (its variables hold the secrets) from memory as soon as nothing observes it.
    gcTime: 0,
    mutationFn: async ({ task, secrets }: StartEpisodeInput) => {
      const client = await loadOrsClient(server);
      const { sid } = await client.createSession();
      onSession?.(sid);
      const body =
        "split" in task
          ? { env_name: env, split: task.split, index: task.index }
          : { env_name: env, task_spec: task.task_spec };
      const startedAt = Date.now();
      try {
        await client.create(sid, secrets && Object.keys(secrets).length ? { ...body, secrets } : body);
        const prompt = await client.prompt(env, sid);
        return { sid, prompt, startedAt };
      } catch (err) {
        // Do not leave a half-started session behind (best effort).
        client.delete(sid).catch(() => {});
        throw err;
      }
    },
    onSuccess: ({ sid, prompt, startedAt }, { task }) => {
      qc.setQueryData(orsKeys.prompt(server, env, sid), prompt);
      const record: EpisodeSnapshot = { task, startedAt, lastRequestAt: Date.now(), end: null, steps: [] };
      writeEpisodeRecord(server, sid, record);
    },
  });
}

// ---- End ----

/** "End episode": /delete, then the episode ends as ended by the user. */
export function useEndEpisode() {
  const store = useEpisodeStoreApi();
  return useMutation({
    mutationFn: async () => {
      const { server, sid } = store.getState();
      await (await loadOrsClient(server)).delete(sid);
    },
    onSuccess: () => {
      const s = store.getState();
      s.endEpisode("user", "You ended the episode (the session was deleted).");
      s.markClosed();
    },
    onError: (err) => {
      const s = store.getState();
      const end = sessionEndFor(err, s.lastRequestAt);
      if (end) s.endEpisode(end.reason, end.detail);
    },
  });
}

// ---- Keep-alive ----

/**
 * Pings the session every 10 s while `active` and the page is visible; stops when it is hidden or
 * closed, so an episode left open expires as the spec says. A failed ping ends the episode.
 */
export function useKeepAlive(active: boolean, intervalMs = KEEP_ALIVE_MS) {
  const store = useEpisodeStoreApi();
  useEffect(() => {
    if (!active) return;
    let stop: (() => void) | null = null;
    let client: OrsClient | null = null;
    let disposed = false;
    const { server, sid } = store.getState();
    const keepAlive = (c: OrsClient) =>
      startKeepAlive(c, sid, { intervalMs, onError, onPing: (at) => store.getState().touch(at) });
    const onError = (err: Error) => {
      stop = null;
      const s = store.getState();
      const end = sessionEndFor(err, s.lastRequestAt);
      if (end) s.endEpisode(end.reason, end.detail);
      else if (!disposed && client && document.visibilityState === "visible") {
        // A transient failure (network, 5xx): try again on the next interval.
        stop = keepAlive(client);
      }
    };
    const run = () => {
      stop?.();
      stop = null;
      if (disposed || !client || document.visibilityState !== "visible") return;
      // Coming back after a while: ping at once, so an expired session is noticed immediately.
      const last = store.getState().lastRequestAt;
      if (last === null || Date.now() - last > intervalMs) {
        client
          .ping(sid)
          .then(() => store.getState().touch())
          .catch((err) => onError(err instanceof Error ? err : new Error(String(err))));
      }
      stop = keepAlive(client);
    };
    loadOrsClient(server).then(
      (c) => {
        client = c;
        run();
      },
      (err) => onError(err instanceof Error ? err : new Error(String(err))),
    );
    document.addEventListener("visibilitychange", run);
    return () => {
      disposed = true;
      document.removeEventListener("visibilitychange", run);
      stop?.();
    };
  }, [active, intervalMs, store]);
}

// ---- Persistence and reopening ----

function recordKey(server: string, sid: string): string {
  return `ors-episode:v1:${server}:${sid}`;
}

export function readEpisodeRecord(server: string, sid: string): EpisodeSnapshot | null {
  try {
    const raw = sessionStorage.getItem(recordKey(server, sid));
    return raw ? (JSON.parse(raw) as EpisodeSnapshot) : null;
  } catch {
    return null;
  }
}

export function writeEpisodeRecord(server: string, sid: string, snapshot: EpisodeSnapshot): void {
  try {
    sessionStorage.setItem(recordKey(server, sid), JSON.stringify(snapshot));
  } catch {
    // Quota exceeded (large image outputs): keep the steps without their output blocks.
    try {
      const slim = {
        ...snapshot,
        steps: snapshot.steps.map((s) =>
          s.result?.ok ? { ...s, result: { ...s.result, output: { ...s.result.output, blocks: [] } } } : s,
        ),
      };
      sessionStorage.setItem(recordKey(server, sid), JSON.stringify(slim));
    } catch {
      // storage unavailable: the recorded trajectory remains the source on reload
    }
  }
}

const END_REASON_OF: Record<NonNullable<Trajectory["end_reason"]>, EpisodeEndReason> = {
  finished: "finished",
  user_closed: "user",
  timeout: "expired",
  error: "lost",
};

/** Maps a recorded trajectory (GET /api/trajectories/by-session/...) onto the store's snapshot. */
export function snapshotFromTrajectory(t: Trajectory): EpisodeSnapshot {
  const steps: Step[] = t.steps.map((s) => ({
    id: `rec-${s.index}`,
    tool: s.tool,
    input: s.input as JsonObject,
    startedAt: s.started_at,
    status: s.ok === null ? "interrupted" : s.ok ? "done" : "error",
    taskId: s.task_id ?? undefined,
    events: s.events.map((e) =>
      e.kind === "comment"
        ? { at: s.started_at + e.t, type: "ping" as const, data: e.comment }
        : {
            at: s.started_at + e.t,
            type: (["task_id", "chunk", "end", "error"].includes(e.event) ? e.event : "error") as "task_id",
            data: e.event === "chunk" || e.event === "end" ? undefined : e.data,
            size: e.event === "chunk" || e.event === "end" ? e.data.length : undefined,
            preview: e.event === "chunk" || e.event === "end" ? e.data.slice(0, 120) : undefined,
          },
    ),
    received: s.events.reduce(
      (n, e) => n + (e.kind === "event" && (e.event === "chunk" || e.event === "end") ? e.data.length : 0),
      0,
    ),
    result:
      s.ok === null
        ? undefined
        : s.ok
          ? {
              ok: true,
              output: { blocks: s.blocks, reward: s.reward, finished: s.finished, metadata: s.metadata },
            }
          : { ok: false, error: s.error ?? "error" },
    error:
      s.ok === false
        ? (s.error ?? undefined)
        : s.ok === null
          ? "Not finished when this page opened (still running elsewhere, or abandoned)."
          : undefined,
    latencyMs: s.latency_ms ?? undefined,
  }));
  const lastAt = Math.max(t.started_at, ...t.steps.map((s) => s.ended_at ?? s.started_at));
  return {
    task: t.task,
    startedAt: t.started_at,
    lastRequestAt: lastAt,
    end: t.end_reason
      ? { reason: END_REASON_OF[t.end_reason], at: t.ended_at ?? lastAt, detail: t.error ?? undefined }
      : null,
    steps,
  };
}

async function fetchRecordedTrajectory(
  server: string,
  sid: string,
  signal: AbortSignal,
): Promise<Trajectory | null> {
  try {
    const res = await fetch(
      `/api/trajectories/by-session/${encodeURIComponent(server)}/${encodeURIComponent(sid)}`,
      {
        signal,
        headers: { accept: "application/json" },
      },
    );
    if (!res.ok) return null;
    // A light shape check (no zod schema in the page bundle): the server wrote it with the schema.
    const body = (await res.json()) as Partial<Trajectory> | null;
    return body && body.format === "ors-trajectory/1" && Array.isArray(body.steps)
      ? (body as Trajectory)
      : null;
  } catch {
    return null;
  }
}

/**
 * Reopens the episode into the store: the trajectory the relay recorded (GET
 * /api/trajectories/by-session/<server>/<sid>), else this tab's sessionStorage copy (written as the
 * episode runs); then keeps that copy up to date. Returns whether the store is ready.
 */
export function useEpisodePersistence(): boolean {
  const store = useEpisodeStoreApi();
  const ready = useRef(false);
  const query = useQuery({
    queryKey: [...orsKeys.session(store.getState().server, store.getState().sid), "reopen"],
    queryFn: async ({ signal }) => {
      const { server, sid } = store.getState();
      const local = readEpisodeRecord(server, sid);
      const recorded = await fetchRecordedTrajectory(server, sid, signal);
      if (recorded) {
        const snap = snapshotFromTrajectory(recorded);
        // This tab knows what the relay cannot: the task (when the recorder missed /create) and
        // when it last reached the server.
        return {
          snapshot: {
            ...snap,
            task: snap.task ?? local?.task ?? null,
            lastRequestAt: Math.max(snap.lastRequestAt ?? 0, local?.lastRequestAt ?? 0) || null,
            end: snap.end ?? local?.end ?? null,
          },
          source: snap.steps.length ? ("trajectory" as const) : ("new" as const),
        };
      }
      if (local)
        return {
          snapshot: local,
          source: local.steps.length ? ("session-storage" as const) : ("new" as const),
        };
      return { snapshot: null, source: "none" as const };
    },
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: 0,
    retry: false,
  });

  const [hydrated, setHydrated] = useState(false);
  useEffect(() => {
    if (!query.data || ready.current) return;
    ready.current = true;
    const s = store.getState();
    const snap = query.data.snapshot;
    if (snap) {
      // Steps left "running" by the previous page are resumed by useResumeInFlight, or stay interrupted.
      s.hydrate(
        {
          ...snap,
          steps: snap.steps.map((st) =>
            st.status === "running" ? { ...st, status: "interrupted" as const } : st,
          ),
        },
        query.data.source,
      );
    } else {
      s.hydrate({ task: null, startedAt: null, lastRequestAt: null, end: null, steps: [] }, "none");
    }
    setHydrated(true);
  }, [query.data, store]);

  useEffect(() => {
    if (!hydrated) return;
    // Save as the episode runs (coalesced: streams change the state many times a second).
    let timer: ReturnType<typeof setTimeout> | null = null;
    const save = () => {
      timer = null;
      const st = store.getState();
      writeEpisodeRecord(st.server, st.sid, snapshotOf(st));
    };
    const unsub = store.subscribe(() => {
      if (!timer) timer = setTimeout(save, 250);
    });
    const flush = () => {
      if (timer) clearTimeout(timer);
      save();
    };
    window.addEventListener("pagehide", flush);
    return () => {
      unsub();
      window.removeEventListener("pagehide", flush);
      flush();
    };
  }, [hydrated, store]);

  return hydrated;
}

/** The end of an episode as one sentence for the banner. */
export function endHeadline(end: EpisodeEnd): string {
  switch (end.reason) {
    case "finished":
      return "Episode finished";
    case "user":
      return "Episode ended";
    case "expired":
      return "Session expired";
    case "lost":
      return "Session lost";
    default:
      return "Episode failed";
  }
}

export type { Block, EpisodeState };
