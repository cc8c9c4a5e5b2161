// The episode pages' Web Worker (one per tab; page side: off-thread.ts, messages: stream-protocol.ts):
// a tool call's stream (a 50 MiB result read and parsed here; the page hears how it ended), a live
// feed (parsed here, handed over in batches) and the parsing of large recorded episodes.
import type { OrsClient } from "@/lib/ors/client";
import { FEED_BATCH_MS, type WorkerError, type WorkerReply, type WorkerRequest } from "./stream-protocol";

type Scope = {
  postMessage(message: WorkerReply): void;
  addEventListener(type: "message", listener: (e: MessageEvent<WorkerRequest>) => void): void;
};

function errorOf(err: unknown): WorkerError {
  if (err instanceof Error) {
    const e = err as Error & { kind?: unknown; status?: unknown; detail?: unknown };
    return {
      name: e.name,
      message: e.message,
      ...(typeof e.kind === "string" ? { kind: e.kind } : {}),
      ...(typeof e.status === "number" ? { status: e.status } : {}),
      ...(typeof e.detail === "string" ? { detail: e.detail } : {}),
    };
  }
  return { name: "Error", message: String(err) };
}

/** Starts answering requests on `scope` (the worker's global scope). */
export function serveWorker(scope: Scope): void {
  const clients = new Map<string, OrsClient>();
  const calls = new Map<number, AbortController>();
  const feeds = new Map<number, () => void>();
  const post = (m: WorkerReply) => scope.postMessage(m);

  // The typed client (with its zod schemas) loads on the first call: feeds and parsing, which the
  // page needs at once, do not wait for it.
  const clientFor = async (base: string) => {
    let c = clients.get(base);
    if (!c) {
      const { createOrsClient } = await import("@/lib/ors/client");
      c = clients.get(base) ?? createOrsClient({ baseUrl: base });
      clients.set(base, c);
    }
    return c;
  };

  const call = async (r: Extract<WorkerRequest, { type: "call" }>) => {
    const ctrl = new AbortController();
    calls.set(r.id, ctrl);
    try {
      const client = await clientFor(r.base);
      if (ctrl.signal.aborted) return;
      await client.callTool(r.env, r.sid, r.call, {
        signal: ctrl.signal,
        headers: r.headers,
        onEvent: (ev) => {
          if (ev.type === "reconnect" || ev.type === "give-up")
            post({
              type: "call-note",
              id: r.id,
              note: { at: ev.at, type: ev.type, data: ev.data, attempt: ev.attempt },
            });
        },
      });
      post({ type: "call-done", id: r.id });
    } catch (err) {
      if (!ctrl.signal.aborted) post({ type: "call-error", id: r.id, error: errorOf(err) });
    } finally {
      calls.delete(r.id);
    }
  };

  const openFeed = (r: Extract<WorkerRequest, { type: "feed-open" }>) => {
    const source = new EventSource(r.url);
    let queue: { type: string; data: unknown }[] = [];
    let timer: ReturnType<typeof setTimeout> | null = null;
    feeds.set(r.id, () => {
      if (timer) clearTimeout(timer);
      source.close();
    });
    const flush = () => {
      timer = null;
      if (!queue.length) return;
      const events = queue;
      queue = [];
      post({ type: "feed-events", id: r.id, events });
    };
    for (const type of r.events) {
      source.addEventListener(type, (msg) => {
        let data: unknown;
        try {
          data = JSON.parse((msg as MessageEvent<string>).data);
        } catch {
          return; // not our feed's JSON: skipped
        }
        queue.push({ type, data });
        // The first event of a quiet feed goes at once; a burst waits for the batch.
        timer ??= setTimeout(flush, queue.length === 1 ? 0 : FEED_BATCH_MS);
      });
    }
    source.onopen = () => post({ type: "feed-state", id: r.id, state: "open" });
    source.onerror = () => {
      flush();
      post({
        type: "feed-state",
        id: r.id,
        state: source.readyState === EventSource.CLOSED ? "closed" : "connecting",
      });
    };
  };

  const parseJson = (r: Extract<WorkerRequest, { type: "parse-json" }>) => {
    try {
      post({ type: "json", id: r.id, body: JSON.parse(r.text), error: null });
    } catch (err) {
      post({ type: "json", id: r.id, body: null, error: err instanceof Error ? err.message : String(err) });
    }
  };

  scope.addEventListener("message", (e) => {
    const r = e.data;
    switch (r.type) {
      case "call":
        void call(r);
        break;
      case "abort":
        calls.get(r.id)?.abort(new DOMException("aborted", "AbortError"));
        calls.delete(r.id);
        break;
      case "feed-open":
        openFeed(r);
        break;
      case "feed-close":
        feeds.get(r.id)?.();
        feeds.delete(r.id);
        break;
      case "parse-json":
        parseJson(r);
        break;
    }
  });
}
