// The page's side of the episode pages' worker (stream-worker.ts): call streams, live feeds and the
// parsing of large recorded episodes run off the main thread, so a 50 MiB result never blocks the page;
// where no worker can start (an old browser, jsdom) the same work runs here, batched the same way.
"use client";

import type { JsonObject } from "@/lib/ors/protocol";
import { FEED_BATCH_MS, type WorkerError, type WorkerReply, type WorkerRequest } from "./stream-protocol";

type Listener = (reply: WorkerReply) => void;

let worker: Worker | null | undefined;
const listeners = new Map<number, Listener>();
let nextId = 1;

/** The tab's worker, started on first use; null when none can start. */
function getWorker(): Worker | null {
  if (worker !== undefined) return worker;
  try {
    if (typeof Worker === "undefined") throw new Error("no Worker");
    const w = new Worker(new URL("./stream-worker-entry.ts", import.meta.url), {
      type: "module",
      name: "ors-streams",
    });
    w.addEventListener("message", (e: MessageEvent<WorkerReply>) => listeners.get(e.data.id)?.(e.data));
    // A worker that fails to load: everything falls back to the main thread from then on.
    w.addEventListener("error", () => {
      worker = null;
      for (const l of listeners.values()) l({ type: "feed-state", id: -1, state: "closed" });
    });
    worker = w;
  } catch {
    worker = null;
  }
  return worker;
}

function send(w: Worker, r: WorkerRequest): void {
  w.postMessage(r);
}

/** Rebuilds an error that crossed from the worker (an OrsClientError keeps its kind and detail). */
function rebuild(e: WorkerError): Error {
  const err = new Error(e.message) as Error & { kind?: string; status?: number; detail?: string };
  err.name = e.name;
  if (e.kind !== undefined) err.kind = e.kind;
  if (e.status !== undefined) err.status = e.status;
  if (e.detail !== undefined) err.detail = e.detail;
  return err;
}

export interface CallNote {
  at: number;
  type: "reconnect" | "give-up";
  data?: string;
  attempt?: number;
}

/**
 * Calls a tool through the relay and resolves when its stream has ended (its result is not
 * returned: the recorded step brings it). Rejects with the client's error, or the signal's reason.
 */
export function callToolOffThread(
  base: string,
  env: string,
  sid: string,
  call: { name: string; input: JsonObject; task_id?: string },
  o: { signal: AbortSignal; headers: Record<string, string>; onNote: (n: CallNote) => void },
  fallback: () => Promise<void>,
): Promise<void> {
  const w = getWorker();
  if (!w) return fallback();
  const id = nextId++;
  return new Promise<void>((resolve, reject) => {
    const done = () => {
      listeners.delete(id);
      o.signal.removeEventListener("abort", onAbort);
    };
    const onAbort = () => {
      send(w, { type: "abort", id });
      done();
      reject(o.signal.reason);
    };
    if (o.signal.aborted) return reject(o.signal.reason);
    o.signal.addEventListener("abort", onAbort, { once: true });
    listeners.set(id, (r) => {
      if (r.type === "call-note") o.onNote(r.note);
      else if (r.type === "call-done") {
        done();
        resolve();
      } else if (r.type === "call-error") {
        done();
        reject(rebuild(r.error));
      } else if (r.type === "feed-state" && r.id === -1) {
        // The worker died: run the call here instead.
        done();
        fallback().then(resolve, reject);
      }
    });
    send(w, { type: "call", id, base, env, sid, call, headers: o.headers });
  });
}

export type FeedState = "open" | "connecting" | "closed";

/**
 * Follows an SSE feed of JSON events (`events` names the event types), handing them over in
 * batches (a burst of frames is one batch, at most every FEED_BATCH_MS). Returns its closer.
 */
export function openFeed(
  url: string,
  events: readonly string[],
  on: { events: (batch: { type: string; data: unknown }[]) => void; state: (s: FeedState) => void },
): () => void {
  const w = getWorker();
  if (!w) return openFeedHere(url, events, on);
  const id = nextId++;
  let closer: (() => void) | null = null;
  listeners.set(id, (r) => {
    if (r.type === "feed-events") on.events(r.events);
    else if (r.type === "feed-state" && r.id === id) on.state(r.state);
    else if (r.type === "feed-state" && r.id === -1) {
      // The worker died: follow the feed here.
      listeners.delete(id);
      closer = openFeedHere(url, events, on);
    }
  });
  send(w, { type: "feed-open", id, url, events });
  return () => {
    listeners.delete(id);
    if (closer) closer();
    else send(w, { type: "feed-close", id });
  };
}

/** openFeed on the main thread (no worker): the same batches. */
function openFeedHere(
  url: string,
  events: readonly string[],
  on: { events: (batch: { type: string; data: unknown }[]) => void; state: (s: FeedState) => void },
): () => void {
  const source = new EventSource(url);
  let queue: { type: string; data: unknown }[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = () => {
    timer = null;
    const batch = queue;
    queue = [];
    if (batch.length) on.events(batch);
  };
  for (const type of events) {
    source.addEventListener(type, (msg) => {
      try {
        queue.push({ type, data: JSON.parse((msg as MessageEvent<string>).data) });
      } catch {
        return;
      }
      timer ??= setTimeout(flush, queue.length === 1 ? 0 : FEED_BATCH_MS);
    });
  }
  source.onopen = () => on.state("open");
  source.onerror = () => {
    flush();
    on.state(source.readyState === EventSource.CLOSED ? "closed" : "connecting");
  };
  return () => {
    if (timer) clearTimeout(timer);
    source.close();
  };
}

/** Bodies longer than this (characters) are parsed in the worker; shorter ones here, at once. */
export const OFF_THREAD_JSON_CHARS = 512 * 1024;

/**
 * A JSON GET of a recorded episode: its status and parsed body. The body is read by the browser
 * off the main thread; a large one (a trajectory of megabytes) is parsed in the worker too, a small
 * one here (no worker to wait for on the way to an interactive page).
 */
export async function fetchJsonOffThread(
  url: string,
  signal?: AbortSignal,
): Promise<{ status: number; body: unknown; text: string | null }> {
  const res = await fetch(url, { signal, headers: { accept: "application/json" } });
  const text = await res.text();
  const w = text.length > OFF_THREAD_JSON_CHARS ? getWorker() : null;
  if (!w) {
    try {
      return { status: res.status, body: JSON.parse(text), text: null };
    } catch {
      return { status: res.status, body: null, text: text.slice(0, 2000) };
    }
  }
  const id = nextId++;
  const parsed = await new Promise<{ body: unknown; error: string | null }>((resolve, reject) => {
    const onAbort = () => {
      listeners.delete(id);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    listeners.set(id, (r) => {
      if (r.type === "json") {
        listeners.delete(id);
        signal?.removeEventListener("abort", onAbort);
        resolve({ body: r.body, error: r.error });
      } else if (r.type === "feed-state" && r.id === -1) {
        // The worker died: parse here.
        listeners.delete(id);
        try {
          resolve({ body: JSON.parse(text), error: null });
        } catch (err) {
          resolve({ body: null, error: String(err) });
        }
      }
    });
    send(w, { type: "parse-json", id, text });
  });
  return parsed.error === null
    ? { status: res.status, body: parsed.body, text: null }
    : { status: res.status, body: null, text: text.slice(0, 2000) };
}
