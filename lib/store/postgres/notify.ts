// Notifications between app replicas on one PostgreSQL database (LISTEN/NOTIFY), for the live feeds
// (lib/episodes/live-postgres.ts) and the runs' progress (lib/runs/events-postgres.ts), each on a channel of
// its own: one connection sends, in the order things were sent, from a bounded queue per channel;
// one connection listens on every channel, and listens again (backing off) when it breaks.
import "server-only";
import pg from "pg";
import type { PostgresDatabase } from "./db";

/** Notifications waiting to be sent, per channel, at most (beyond: dropped, and the log says so). */
export const MAX_QUEUED_NOTIFICATIONS = 2000;

export interface NotifyChannel {
  /** Queues a notification (at most 8000 bytes: the caller sees to it). */
  send(payload: string): void;
}

export interface ChannelOptions {
  /** Each notification received on the channel, from any replica this one included. */
  onPayload(payload: string | undefined): void;
  /** What its notifications carry, for the log ("live event"). */
  what: string;
}

export interface PostgresNotifier {
  /** Resolves once this replica listens (its first LISTEN succeeded); rejects with the first failure. */
  readonly ready: Promise<void>;
  /** A channel (one name, one channel): listened to from now on. */
  channel(name: string, o: ChannelOptions): NotifyChannel;
  /** Sends what is queued (for a moment at most), then closes both connections. */
  close(): Promise<void>;
}

const isChannelName = (s: string) => /^[a-z_][a-z0-9_]{0,62}$/.test(s);

export function createPostgresNotifier(
  db: Pick<PostgresDatabase, "ready" | "clientConfig">,
  opts: { log?: (m: string) => void } = {},
): PostgresNotifier {
  const log = opts.log ?? ((m: string) => console.error(`[notify] ${m}`));
  const channels = new Map<string, ChannelOptions & { queued: number; dropped: number }>();
  let closed = false;

  const warnDropped = (what: string, why: string, n: number) => {
    if (n === 1 || n % 1000 === 0) log(`${why}: ${n} ${what}(s) dropped so far (the database fell behind)`);
  };

  // ---- sending: one connection, so notifications leave in the order they were queued ----
  const outbox: { channel: string; payload: string }[] = [];
  let sender: pg.Client | null = null;
  let sending = false;
  let draining: Promise<void> = Promise.resolve();
  const connectSender = async (): Promise<pg.Client> => {
    if (sender) return sender;
    await db.ready;
    const c = new pg.Client(db.clientConfig);
    c.on("error", (err) => {
      log(`the notifying connection broke: ${err.message}`);
      if (sender === c) sender = null;
    });
    await c.connect();
    sender = c;
    return c;
  };
  const send = async () => {
    try {
      while (outbox.length) {
        const batch = outbox.splice(0, 100);
        for (const x of batch) channels.get(x.channel)!.queued--;
        try {
          const c = await connectSender();
          // One statement: unnest keeps the order.
          await c.query("SELECT pg_notify(c, p) FROM unnest($1::text[], $2::text[]) AS x(c, p)", [
            batch.map((x) => x.channel),
            batch.map((x) => x.payload),
          ]);
        } catch (err) {
          const lost = new Map<string, number>();
          for (const x of batch) lost.set(x.channel, (lost.get(x.channel) ?? 0) + 1);
          for (const [name, n] of lost) {
            const ch = channels.get(name)!;
            ch.dropped += n;
            warnDropped(
              ch.what,
              `could not notify the other replicas (${(err as Error).message})`,
              ch.dropped,
            );
          }
          sender?.end().catch(() => {});
          sender = null;
          if (closed) {
            for (const x of outbox) channels.get(x.channel)!.queued--;
            outbox.length = 0;
          } else await new Promise((r) => setTimeout(r, 500));
        }
      }
    } finally {
      sending = false;
    }
  };
  const flush = () => {
    if (sending) return;
    sending = true;
    draining = send();
  };

  // ---- receiving: LISTEN on a connection of its own, reconnected when it breaks ----
  let listener: pg.Client | null = null;
  let backoff = 250;
  const listenSoon = () => {
    if (closed) return;
    setTimeout(() => {
      listen().catch((err: Error) => {
        log(`could not listen for notifications: ${err.message}`);
        backoff = Math.min(backoff * 2, 10_000);
        listenSoon();
      });
    }, backoff).unref?.();
  };
  const listen = async (): Promise<void> => {
    await db.ready;
    const c = new pg.Client(db.clientConfig);
    const lost = (why: string) => {
      if (listener !== c) return;
      listener = null;
      c.end().catch(() => {});
      if (closed) return;
      log(`the listening connection broke (${why}); listening again`);
      listenSoon();
    };
    c.on("notification", (msg) => channels.get(msg.channel)?.onPayload(msg.payload));
    c.on("error", (err) => lost(err.message));
    c.on("end", () => lost("closed"));
    try {
      await c.connect();
      if (closed) throw new Error("closed");
      for (const name of channels.keys()) await c.query(`LISTEN ${name}`);
    } catch (err) {
      c.end().catch(() => {});
      throw err;
    }
    listener = c;
    backoff = 250;
  };
  // Started on the next tick, so that the channels asked for at once are listened to at once.
  const ready = Promise.resolve().then(listen);
  // The first failure rejects `ready` (a server entry reports it at start); listening is retried all the same.
  ready.catch(() => listenSoon());

  return {
    ready,
    channel(name, o) {
      if (!isChannelName(name)) throw new Error(`not a channel name: ${JSON.stringify(name)}`);
      if (channels.has(name)) throw new Error(`the channel ${name} is taken`);
      channels.set(name, { ...o, queued: 0, dropped: 0 });
      // A channel asked for after the first LISTEN: listened to on the connection there is.
      void listener?.query(`LISTEN ${name}`).catch(() => {});
      const ch = channels.get(name)!;
      return {
        send(payload) {
          if (closed) return;
          if (ch.queued >= MAX_QUEUED_NOTIFICATIONS) {
            ch.dropped++;
            return warnDropped(ch.what, "too many notifications waiting", ch.dropped);
          }
          ch.queued++;
          outbox.push({ channel: name, payload });
          flush();
        },
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      const l = listener;
      listener = null;
      // What is already queued (an episode's end at shutdown) still goes out, within a moment.
      await Promise.race([draining, new Promise((r) => setTimeout(r, 2000).unref?.())]);
      outbox.length = 0;
      await Promise.all([l?.end().catch(() => {}), sender?.end().catch(() => {})]);
      sender = null;
    },
  };
}
