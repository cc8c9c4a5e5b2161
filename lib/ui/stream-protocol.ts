// The messages between the episode pages and their worker (stream-worker.ts, off-thread.ts): a
// module of types and constants only, so the page's side does not bundle the worker's client.
import type { JsonObject } from "@/lib/ors/protocol";

/** What the page asks. */
export type WorkerRequest =
  | {
      type: "call";
      id: number;
      /** The relay's base URL of the server, e.g. `/api/servers/local`. */
      base: string;
      env: string;
      sid: string;
      call: { name: string; input: JsonObject; task_id?: string };
      headers: Record<string, string>;
    }
  | { type: "abort"; id: number }
  | { type: "feed-open"; id: number; url: string; events: readonly string[] }
  | { type: "feed-close"; id: number }
  /** A large JSON text (a recorded episode the page fetched) to parse here. */
  | { type: "parse-json"; id: number; text: string };

/** A failure as it crosses to the page (an OrsClientError keeps its kind, status and detail). */
export interface WorkerError {
  name: string;
  message: string;
  kind?: string;
  status?: number;
  detail?: string;
}

/** What the worker answers. */
export type WorkerReply =
  /** A reconnection or a give-up of the call's client (the only call events the page shows). */
  | {
      type: "call-note";
      id: number;
      note: { at: number; type: "reconnect" | "give-up"; data?: string; attempt?: number };
    }
  | { type: "call-done"; id: number }
  | { type: "call-error"; id: number; error: WorkerError }
  | { type: "feed-events"; id: number; events: { type: string; data: unknown }[] }
  | { type: "feed-state"; id: number; state: "open" | "connecting" | "closed" }
  /** The parsed value, or why the text is not JSON. */
  | { type: "json"; id: number; body: unknown; error: string | null };

/** Feed events are handed over at most this often (a burst of frames becomes one batch). */
export const FEED_BATCH_MS = 50;
