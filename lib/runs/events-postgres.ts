// The runs' progress across app replicas (the RunEvents contract of ./events.ts) over LISTEN/NOTIFY
// (lib/store/postgres/notify.ts): what the replica playing a run publishes reaches its own
// watchers at once and every other replica's as a notification, so `GET /api/runs/{id}/events` on
// any replica follows the run live. Events are small; a long error message is cut to fit.
import "server-only";
import type { PostgresNotifier } from "@/lib/store/postgres/notify";
import { createRunEvents, type RunEvent, type RunEvents } from "./events";

/** The channel every replica listens on for runs' progress. */
export const RUNS_CHANNEL = "ors_playground_runs";
/** Most bytes a notification carries (PostgreSQL refuses 8000 or more). */
const MAX_NOTIFY_BYTES = 7900;
/** An error message cut to this many characters when the event would not fit whole. */
const ERROR_CUT = 1000;

const TYPES = new Set(["progress", "episode", "status"]);

/** One notification: the replica that sent it and the event. */
export function encodeRunNotice(replica: string, e: RunEvent): string {
  const whole = JSON.stringify({ r: replica, e });
  if (Buffer.byteLength(whole, "utf8") <= MAX_NOTIFY_BYTES || !("error" in e) || !e.error) return whole;
  return JSON.stringify({ r: replica, e: { ...e, error: `${e.error.slice(0, ERROR_CUT)}…` } });
}

/** The event of a notification when it has the shape this module sends, else null (anyone may NOTIFY). */
export function decodeRunNotice(payload: string | undefined): { r: string; e: RunEvent } | null {
  let v: unknown;
  try {
    v = JSON.parse(payload ?? "");
  } catch {
    return null;
  }
  const o = v as { r?: unknown; e?: { type?: unknown; runId?: unknown; at?: unknown } } | null;
  if (typeof o?.r !== "string" || typeof o.e !== "object" || o.e === null) return null;
  if (!TYPES.has(o.e.type as string) || typeof o.e.runId !== "string" || typeof o.e.at !== "number")
    return null;
  return o as { r: string; e: RunEvent };
}

export function createPostgresRunEvents(
  db: { replica: string },
  notifier: PostgresNotifier,
  opts: { log?: (m: string) => void; channel?: string } = {},
): RunEvents {
  const log = opts.log ?? ((m: string) => console.error(`[runs] ${m}`));
  const local = createRunEvents();
  let ignored = 0;
  const out = notifier.channel(opts.channel ?? RUNS_CHANNEL, {
    what: "run event",
    onPayload(payload) {
      const notice = decodeRunNotice(payload);
      if (!notice) {
        if (++ignored === 1 || ignored % 1000 === 0)
          log(`${ignored} notification(s) that are not run events ignored`);
        return;
      }
      if (notice.r !== db.replica) local.publish(notice.e);
    },
  });
  return {
    subscribe: (runId, listener) => local.subscribe(runId, listener),
    publish(e) {
      local.publish(e);
      const notice = encodeRunNotice(db.replica, e);
      // Only a huge run id could still be too long: such an event stays here.
      if (Buffer.byteLength(notice, "utf8") <= MAX_NOTIFY_BYTES) out.send(notice);
    },
  };
}
