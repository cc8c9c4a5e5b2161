// Hooks of one episode page: following the recorded episode (by-session look-up, then its live
// feed), the session's tools, starting and ending an episode, asking for the prompt the first
// time, and keep-alive pings that stop when nobody uses the tab. The episode's truth is the record
// on the server: these hooks never send a second /prompt and never decide how an episode ended.
"use client";

import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import type { OrsClient } from "@/lib/ors/client";
// The error type comes without the client (and its zod schemas), which loads on demand.
import { isOrsClientError, type OrsClientErrorKind } from "@/lib/ors/client/errors";
import type { Secrets, ToolSpec } from "@/lib/ors/protocol";
import type { FeedEvent, LiveEvent, SnapshotEvent } from "@/lib/trajectory/feed";
import type { EndReason, Trajectory } from "@/lib/trajectory/schema";
import { type EpisodeTask, selectEnded, useEpisodeStore, useEpisodeStoreApi } from "./episode-store";
import { fetchJsonOffThread, openFeed } from "./off-thread";
import { loadOrsClient } from "./ors-loader";
import { appendExchange, protocolLogKeys, readExchangeEvent } from "./protocol-log";
import { orsKeys } from "./query-keys";

/** Keep-alive interval while the page is visible (spec: the reference client pings every 10 s). */
export const KEEP_ALIVE_MS = 10_000;
/** Keep-alive stops after this long without anyone using the tab (the server may then expire it). */
export const KEEP_ALIVE_INACTIVITY_MS = 15 * 60_000;

// ---- URLs ----

/** Where the new-episode page keeps a task_spec draft (sessionStorage; never secrets). */
export function draftSpecKey(server: string, env: string): string {
  return `ors-task-spec:${server}:${env}`;
}

// ---- Errors and end reasons, in words ----

// What a failure was, in words; an HTTP error (or a kind unknown here) says its status instead.
const FAILURE_KINDS: Partial<Record<OrsClientErrorKind, string>> = {
  unreachable: "Server unreachable",
  timeout: "Timed out",
  "not-ors": "Not an ORS answer",
  stream: "Stream failed",
};

/**
 * A readable message of any error, saying what kind of failure it was: the server could not be
 * reached, the server answered with an error of its own (its `detail`), or its answer is not ORS.
 */
export function errorMessage(err: unknown): string {
  if (isOrsClientError(err)) {
    const what = FAILURE_KINDS[err.kind] ?? `HTTP ${err.status}`;
    return `${what}: ${err.detail}`;
  }
  return err instanceof Error ? err.message : String(err);
}

/** The end of an episode as a headline. */
export function endHeadline(reason: EndReason): string {
  switch (reason) {
    case "finished":
      return "Episode finished";
    case "user_closed":
      return "Episode closed";
    case "timeout":
      return "Session expired";
    case "cancelled":
      return "Episode cancelled";
    case "interrupted":
      return "Episode interrupted";
    case "policy_stopped":
      return "Stopped by the policy";
    default:
      return "Episode ended with an error";
  }
}

// ---- The recorded episode, followed live ----

async function findRecorded(
  apiBase: string,
  server: string,
  sid: string,
  signal: AbortSignal,
): Promise<Trajectory | null> {
  // Read and parsed off the main thread: a recorded episode may hold megabytes of results.
  const res = await fetchJsonOffThread(
    `${apiBase}/trajectories/by-session/${encodeURIComponent(server)}/${encodeURIComponent(sid)}`,
    signal,
  );
  if (res.status === 404) return null;
  if (res.status < 200 || res.status >= 300)
    throw new Error(`could not look the episode up (HTTP ${res.status})`);
  return res.body as Trajectory;
}

const FEED_EVENTS = [
  "snapshot",
  "prompt",
  "reprompt",
  "step",
  "frame",
  "activity",
  "ended",
  "exchange",
] as const;

/**
 * Finds the session's recorded episode and follows its live feed into the store: the snapshot,
 * then every step, frame, prompt and end as it happens (from this tab, another tab, or any client
 * of the relay). The feed is read and parsed off the main thread and applied in batches, so a
 * burst of frames of a huge result re-renders the page once per batch. It closes once the episode
 * has ended. `initial` is the record as the page's server read it: no look-up then.
 */
export function useEpisodeFeed(initial: Trajectory | null = null): void {
  const store = useEpisodeStoreApi();
  const qc = useQueryClient();
  // Only the page's first record: a later one (a refreshed page) is older than the feed.
  const first = useRef(initial);
  useEffect(() => {
    const { server, sid, apiBase } = store.getState();
    const abort = new AbortController();
    const initial = first.current;
    first.current = null;
    let close: (() => void) | null = null;
    (async () => {
      let found: Trajectory | null = initial;
      // The recorder writes the episode as /create passes; a page opened in that instant looks again.
      for (let attempt = 0; attempt < 3 && !found; attempt++) {
        try {
          found = await findRecorded(apiBase, server, sid, abort.signal);
        } catch (err) {
          if (abort.signal.aborted) return;
          store.getState().setMissing(errorMessage(err));
          return;
        }
        if (!found && attempt < 2) await new Promise((r) => setTimeout(r, 400 * (attempt + 1)));
        if (abort.signal.aborted) return;
      }
      if (!found) {
        store
          .getState()
          .setMissing(
            "The playground has no record of this session: it was not started through the playground's relay, or its record was deleted.",
          );
        return;
      }
      const id = found.id;
      // Shown at once from the look-up; the feed's snapshot replaces it.
      store.getState().loadSnapshot({
        type: "snapshot",
        id,
        trajectory: found,
        last_activity_at: found.steps.reduce(
          (m, s) => Math.max(m, s.ended_at ?? s.started_at),
          found.started_at,
        ),
        inflight: [],
      });
      // A finished episode is followed on: an outside client may still make calls (after the end).
      const over = (reason: string | null) => reason !== null && reason !== "finished";
      if (over(found.end_reason)) {
        store.getState().setFeed("closed");
        return;
      }
      let closed = false;
      const stop = () => {
        if (closed) return;
        closed = true;
        close?.();
        store.getState().setFeed("closed");
      };
      close = openFeed(`${apiBase}/trajectories/${encodeURIComponent(id)}/events`, FEED_EVENTS, {
        events: (batch) => {
          if (closed) return;
          const s = store.getState();
          let live: LiveEvent[] = [];
          for (const { data } of batch) {
            // The protocol log's summaries go to its query (lib/ui/protocol-log.ts), not the record.
            const exchange = readExchangeEvent(data);
            if (exchange) {
              if (exchange.id === id) appendExchange(qc, id, exchange);
              continue;
            }
            const e = data as FeedEvent;
            if (e.type === "snapshot") {
              // A reconnected feed may have missed exchanges: the log is read again when shown.
              void qc.invalidateQueries({ queryKey: protocolLogKeys.of(id) });
              s.applyEvents(live);
              live = [];
              s.loadSnapshot(e as SnapshotEvent);
              s.setFeed(over(e.trajectory.end_reason) ? "closed" : "live");
              if (over(e.trajectory.end_reason)) return stop();
            } else {
              live.push(e as LiveEvent);
              if (e.type === "ended" && over(e.end_reason)) {
                s.applyEvents(live);
                return stop();
              }
            }
          }
          s.applyEvents(live);
        },
        state: (state) => {
          if (closed) return;
          if (state === "closed") store.getState().setFeed("error");
          else if (state === "connecting") store.getState().setFeed("connecting");
        },
      });
    })();
    return () => {
      abort.abort();
      close?.();
    };
  }, [store, qc]);
}

// ---- The session's tools ----

export type SessionTools = { tools: ToolSpec[]; source: "task_tools" | "tools"; fallbackReason?: string };

/**
 * The session's tools from /{env}/task_tools, falling back to /{env}/tools when a server lacks it
 * (`apiBase`: a share link's, ./api-base.ts).
 */
export function sessionToolsQuery(server: string, env: string, sid: string, apiBase?: string) {
  return queryOptions({
    queryKey: orsKeys.taskTools(server, env, sid),
    queryFn: async ({ signal }): Promise<SessionTools> => {
      const client = await loadOrsClient(server, apiBase);
      try {
        return { tools: (await client.taskTools(env, sid, { signal })).tools, source: "task_tools" };
      } catch (err) {
        // A server without /task_tools (an older one, a proxy): 405/501, or 404 while /ping still works.
        const missing =
          isOrsClientError(err) &&
          (err.kind === "not-ors" ||
            (err.kind === "http" &&
              (err.status === 405 ||
                err.status === 501 ||
                (err.status === 404 &&
                  (await client.ping(sid, { signal }).then(
                    () => true,
                    () => false,
                  ))))));
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

/**
 * The tools of the episode's session: asked for while it runs, and after it finished (the session
 * still exists; they are shown, not callable), not once its session is gone.
 */
export function useSessionTools() {
  const { server, env, sid, apiBase } = useEpisodeStoreApi().getState();
  const ready = useEpisodeStore((s) => s.status === "ready");
  const gone = useEpisodeStore((s) => selectEnded(s) && s.trajectory?.end_reason !== "finished");
  return useQuery({ ...sessionToolsQuery(server, env, sid, apiBase), enabled: ready && !gone });
}

// ---- Start, prompt, end ----

export interface StartEpisodeInput {
  task: EpisodeTask;
  /** Kept in memory only for this request: never stored, never put in a URL. */
  secrets?: Secrets;
}

/**
 * Starts an episode through the relay: /create_session, /create, then the prompt — requested once,
 * here, as the reference client does (it waits for the environment's setup, so a failing setup is
 * reported on the start page). The relay records all of it; the episode page reads the recorded
 * prompt. `onSession` hears the new session id at once (to prefetch the episode page).
 */
export function useStartEpisode(
  server: string,
  env: string,
  options: { onSession?: (sid: string) => void } = {},
) {
  const { onSession } = options;
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
      try {
        await client.create(sid, secrets && Object.keys(secrets).length ? { ...body, secrets } : body);
        await client.prompt(env, sid);
        return { sid };
      } catch (err) {
        // Do not leave a half-started session behind (best effort; the record keeps why it failed).
        client.delete(sid).catch(() => {});
        throw err;
      }
    },
  });
}

/**
 * Asks the environment for the prompt of a session whose prompt was never requested (a session
 * started by another client). Offered only then: a second /prompt may reset an environment.
 */
export function useRequestPrompt() {
  const store = useEpisodeStoreApi();
  return useMutation({
    mutationFn: async () => {
      const { server, env, sid, apiBase } = store.getState();
      return (await loadOrsClient(server, apiBase)).prompt(env, sid);
    },
  });
}

/** "End episode": /delete; the record then ends as closed (the live feed says so). */
export function useEndEpisode() {
  const store = useEpisodeStoreApi();
  return useMutation({
    mutationFn: async () => {
      const { server, sid, apiBase } = store.getState();
      await (await loadOrsClient(server, apiBase)).delete(sid);
    },
  });
}

// ---- Keep-alive ----

const ACTIVITY_EVENTS = ["pointerdown", "keydown", "wheel", "touchstart", "focus"] as const;

export interface KeepAliveState {
  /** Pings are paused: nobody used this tab for the inactivity limit. */
  paused: boolean;
  /** Resumes pinging (the user is back). */
  resume: () => void;
}

/**
 * Pings the session every `intervalMs` while `active`, the page is visible and someone used the
 * tab within `inactivityMs` (so a forgotten background tab does not keep a session alive forever;
 * the server then expires it as the spec says). A failed ping is recorded by the relay, which ends
 * the episode when the session is gone.
 */
export function useKeepAlive(
  active: boolean,
  { intervalMs = KEEP_ALIVE_MS, inactivityMs = KEEP_ALIVE_INACTIVITY_MS } = {},
): KeepAliveState {
  const store = useEpisodeStoreApi();
  const lastUse = useRef(Date.now());
  const [paused, setPaused] = useState(false);
  const resume = useCallback(() => {
    lastUse.current = Date.now();
    setPaused(false);
  }, []);

  useEffect(() => {
    const onUse = () => {
      lastUse.current = Date.now();
      setPaused(false);
    };
    for (const e of ACTIVITY_EVENTS) window.addEventListener(e, onUse, { passive: true, capture: true });
    return () => {
      for (const e of ACTIVITY_EVENTS) window.removeEventListener(e, onUse, { capture: true });
    };
  }, []);

  useEffect(() => {
    if (!active || paused) return;
    let client: OrsClient | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let disposed = false;
    const { server, sid, apiBase } = store.getState();
    const schedule = (delay: number) => {
      if (timer) clearTimeout(timer);
      timer = disposed ? undefined : setTimeout(tick, delay);
    };
    const tick = async () => {
      timer = undefined;
      if (disposed) return;
      // The client loads when the first ping is due, not with the page (its code is not what the page waits for).
      try {
        client ??= await loadOrsClient(server, apiBase);
      } catch {
        if (!disposed) schedule(intervalMs);
        return;
      }
      if (disposed) return;
      if (Date.now() - lastUse.current >= inactivityMs) {
        setPaused(true);
        return;
      }
      if (document.visibilityState === "visible") {
        try {
          await client.ping(sid);
          store.getState().touch(Date.now());
        } catch {
          // Recorded by the relay: when the session is gone, the record ends and pinging stops.
        }
      }
      if (!timer) schedule(intervalMs);
    };
    /** Coming back after a while: ping at once, so an expired session is noticed immediately. */
    const overdue = () => {
      const last = store.getState().lastActivityAt;
      return last === null || Date.now() - last > intervalMs;
    };
    const now = () => {
      if (timer) clearTimeout(timer);
      void tick();
    };
    const onVisible = () => {
      if (document.visibilityState === "visible" && overdue()) now();
    };
    if (overdue()) now();
    else schedule(intervalMs);
    document.addEventListener("visibilitychange", onVisible);
    return () => {
      disposed = true;
      if (timer) clearTimeout(timer);
      document.removeEventListener("visibilitychange", onVisible);
    };
  }, [active, paused, intervalMs, inactivityMs, store]);

  return { paused: active && paused, resume };
}
