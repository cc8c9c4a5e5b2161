// The live feeds across app replicas (the LiveFeeds contract of ./live.ts) over LISTEN/NOTIFY
// (../store/postgres/notify.ts): events go to this process's watchers at once and to other replicas
// as notifications (the event, or what names its row when it exceeds NOTIFY's 8000 bytes). Both
// queues are bounded.
import "server-only";
import type { Block } from "@/lib/ors/protocol";
import type { PostgresDatabase } from "../store/postgres/db";
import {
  createPostgresNotifier,
  MAX_QUEUED_NOTIFICATIONS,
  type PostgresNotifier,
} from "../store/postgres/notify";
import type { TrajectoryStep, TrajectorySummary } from "../trajectory/schema";
import { createLiveFeeds, type LiveEvent, type LiveFeeds, type LiveListener } from "./live";

/** The channel every replica listens on (channels are per database). */
export const LIVE_CHANNEL = "ors_playground_live";
/** Most bytes a notification carries: PostgreSQL refuses payloads of 8000 bytes or more. */
export const MAX_NOTIFY_BYTES = 7900;
/** Received events waiting to be delivered, at most (as many as may wait to be sent). */
const MAX_QUEUED = MAX_QUEUED_NOTIFICATIONS;
/** A frame's data cut to this many characters when its event would not fit. */
const FRAME_DATA_CUT = 1000;

/** What a notification names when its event is too large to carry. */
export interface LiveRef {
  type: "started" | "prompt" | "step" | "ended";
  id: string;
  index?: number;
  callId?: string;
}

/** One notification: the replica that sent it, its sequence number there, the event or its ref. */
export type LiveNotice = { r: string; s: number } & ({ e: LiveEvent } | { ref: LiveRef });

/** What the feeds read back for an event sent by reference (the PostgreSQL store has these). */
export interface LiveRowReader {
  summary(id: string): Promise<TrajectorySummary | null>;
  promptOf(id: string): Promise<Block[] | null>;
  stepOf(id: string, index: number): Promise<TrajectoryStep | null>;
}

export interface PostgresLiveFeeds extends LiveFeeds {
  /** Resolves once this replica listens (its first LISTEN succeeded). */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

const bytes = (s: string) => Buffer.byteLength(s, "utf8");

/** The notification of an event: itself when it fits, a frame cut to fit, else a reference. */
export function encodeNotice(replica: string, seq: number, e: LiveEvent): string {
  const whole = JSON.stringify({ r: replica, s: seq, e });
  if (bytes(whole) <= MAX_NOTIFY_BYTES) return whole;
  if (e.type === "frame" && e.event.kind === "event") {
    const data = e.event.data;
    const cut = {
      ...e,
      event: { ...e.event, data: data.slice(0, FRAME_DATA_CUT), size: e.event.size ?? data.length },
    };
    const notice = JSON.stringify({ r: replica, s: seq, e: cut });
    if (bytes(notice) <= MAX_NOTIFY_BYTES) return notice;
  }
  const ref: LiveRef =
    e.type === "step"
      ? { type: "step", id: e.id, index: e.step.index, ...(e.callId ? { callId: e.callId } : {}) }
      : { type: e.type === "started" || e.type === "prompt" ? e.type : "ended", id: e.id };
  return JSON.stringify({ r: replica, s: seq, ref });
}

/** The event a reference names, read back from the store (null when the row is gone). */
export async function readRef(ref: LiveRef, rows: LiveRowReader): Promise<LiveEvent | null> {
  switch (ref.type) {
    case "step": {
      const step = ref.index == null ? null : await rows.stepOf(ref.id, ref.index);
      return step ? { type: "step", id: ref.id, step, ...(ref.callId ? { callId: ref.callId } : {}) } : null;
    }
    case "prompt": {
      const blocks = await rows.promptOf(ref.id);
      return blocks ? { type: "prompt", id: ref.id, blocks } : null;
    }
    case "started": {
      const summary = await rows.summary(ref.id);
      return summary ? { type: "started", id: ref.id, summary } : null;
    }
    case "ended": {
      const s = await rows.summary(ref.id);
      return s?.end_reason
        ? {
            type: "ended",
            id: ref.id,
            end_reason: s.end_reason,
            error: s.error,
            ended_at: s.ended_at ?? s.last_activity_at,
          }
        : null;
    }
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/** Whether a notification has the shape this module sends (the events themselves are ours). */
function isNotice(v: unknown): v is LiveNotice {
  if (!isObject(v) || typeof v.r !== "string" || typeof v.s !== "number") return false;
  const named = v.e ?? v.ref;
  return isObject(named) && typeof named.id === "string" && typeof named.type === "string";
}

export function createPostgresLiveFeeds(
  db: Pick<PostgresDatabase, "replica" | "ready" | "clientConfig">,
  rows: LiveRowReader,
  opts: { log?: (m: string) => void; channel?: string; notifier?: PostgresNotifier } = {},
): PostgresLiveFeeds {
  const log = opts.log ?? ((m: string) => console.error(`[live] ${m}`));
  const channel = opts.channel ?? LIVE_CHANNEL;
  // The process's notifier when given (shared with the runs' progress), else one of its own.
  const notifier = opts.notifier ?? createPostgresNotifier(db, { log });
  const local = createLiveFeeds();
  // Who listens here: notifications nobody here watches are not read back.
  const watchers = new Map<string | null, number>();
  let closed = false;
  let seq = 0;
  let droppedIn = 0;
  const lastSeq = new Map<string, number>();

  let delivering: Promise<void> = Promise.resolve();
  let queuedIn = 0;
  const watched = (id: string, frame: boolean) =>
    (watchers.get(id) ?? 0) > 0 || (!frame && (watchers.get(null) ?? 0) > 0);

  const receive = (payload: string | undefined) => {
    let notice: unknown;
    try {
      notice = JSON.parse(payload ?? "");
    } catch {
      notice = null;
    }
    // Anyone who may use the database may notify this channel: what is not ours is ignored.
    if (!isNotice(notice)) return log("a notification that is not a live event was ignored");
    if (notice.r === db.replica) return;
    const before = lastSeq.get(notice.r);
    if (before !== undefined && notice.s > before + 1)
      log(`missed ${notice.s - before - 1} live event(s) of replica ${notice.r}`);
    lastSeq.set(notice.r, notice.s);
    if (lastSeq.size > 1000) lastSeq.delete(lastSeq.keys().next().value!);
    const id = "e" in notice ? notice.e.id : notice.ref.id;
    // Frames and protocol log entries go to the watchers of their episode only (not the all-episodes feed).
    if (!watched(id, "e" in notice && (notice.e.type === "frame" || notice.e.type === "exchange"))) return;
    if (queuedIn >= MAX_QUEUED) {
      droppedIn++;
      if (droppedIn === 1 || droppedIn % 1000 === 0)
        log(
          `too many live events waiting: ${droppedIn} live event(s) dropped so far (the database fell behind)`,
        );
      return;
    }
    queuedIn++;
    // In order: a reference is read back before the events after it are delivered.
    delivering = delivering.then(async () => {
      try {
        const e = "e" in notice ? notice.e : await readRef(notice.ref, rows);
        if (e) local.publish(e);
      } catch (err) {
        log(`could not read a live event of ${id}: ${(err as Error).message}`);
      } finally {
        queuedIn--;
      }
    });
  };
  const out = notifier.channel(channel, { onPayload: receive, what: "live event" });

  return {
    ready: notifier.ready,
    subscribe(id: string | null, listener: LiveListener) {
      watchers.set(id, (watchers.get(id) ?? 0) + 1);
      const unsubscribe = local.subscribe(id, listener);
      let done = false;
      return () => {
        if (done) return;
        done = true;
        unsubscribe();
        const n = (watchers.get(id) ?? 1) - 1;
        if (n > 0) watchers.set(id, n);
        else watchers.delete(id);
      };
    },
    publish(e: LiveEvent) {
      local.publish(e);
      if (closed) return;
      out.send(encodeNotice(db.replica, ++seq, e));
    },
    async close() {
      closed = true;
      if (!opts.notifier) await notifier.close();
    },
  };
}
