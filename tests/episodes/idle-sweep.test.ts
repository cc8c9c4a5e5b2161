// The idle sweep on the composition root, against a real ORS server process (the reference-shaped
// test server) and the real SQLite store: an episode nobody touches (its tab closed, or forgotten
// and no longer pinging) is ended as `timeout` past its server's idle limit + a minute of grace
// (the spec's 15 minutes when the limit is unknown), its session is deleted on the server with a
// `/delete` through the relay, and the record says why — it is not left Running, nor "closed".
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LiveEvent } from "@/lib/episodes/live";
import { IDLE_GRACE_MS, idleRule, idleTimeoutMs } from "@/lib/episodes/recorder";
import { createOrsClient } from "@/lib/ors/client";
import { createPlayground, type Playground } from "@/lib/playground";
import { type RunningReferenceServer, startReferenceServer } from "../fixtures/reference-server/spawn";

const MIN = 60_000;
let dir = "";
let ref: RunningReferenceServer;
let pg: Playground;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "ors-idle-sweep-"));
  ref = await startReferenceServer();
  pg = createPlayground({
    PLAYGROUND_DATA_DIR: dir,
    // The same server twice: `ref` with an unknown idle limit, `known` with a 2-minute one.
    ORS_SERVERS: `ref=${ref.url},known=${ref.url}`,
    ORS_SERVER_IDLE_TIMEOUT_MS_KNOWN: String(2 * MIN),
  });
  await pg.ready;
});

afterAll(async () => {
  await pg?.close();
  await ref?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Starts an episode through the relay as the episode page does; returns its sid and record. */
async function startEpisode(server: string) {
  const client = pg.clientFor(server);
  const { sid } = await client.createSession();
  await client.create(sid, { env_name: "farmplanner", split: "train", index: 0 });
  await client.prompt("farmplanner", sid);
  await pg.recorder.idle();
  const t = await pg.store.findBySession(server, sid);
  if (!t) throw new Error("the episode was not recorded");
  return { sid, t };
}

/** Whether the reference server still has the session (a /ping straight to it, not through the relay). */
async function aliveUpstream(sid: string): Promise<boolean> {
  return createOrsClient({ baseUrl: ref.url })
    .ping(sid)
    .then(
      () => true,
      () => false,
    );
}

function endedEvents(id: string): { events: LiveEvent[]; stop: () => void } {
  const events: LiveEvent[] = [];
  const stop = pg.live.subscribe(id, (e) => {
    if (e.type === "ended") events.push(e);
  });
  return { events, stop };
}

describe("the idle rule", () => {
  it("is the server's idle limit + a minute of grace, else the spec's 15 minutes + grace, unless set for all", () => {
    expect(IDLE_GRACE_MS).toBe(MIN);
    expect(idleRule(null, 2 * MIN)).toBe(3 * MIN);
    expect(idleRule(null, null)).toBe(16 * MIN);
    expect(idleRule(30_000, 2 * MIN)).toBe(30_000);
    expect(idleTimeoutMs({ PLAYGROUND_IDLE_TIMEOUT_S: "90" })).toBe(90_000);
    expect(idleTimeoutMs({ PLAYGROUND_IDLE_TIMEOUT_S: "soon" })).toBeNull();
    expect(idleTimeoutMs({})).toBeNull();
  });
});

describe("the idle sweep", () => {
  it("ends an untouched episode as timeout past 16 minutes on a server whose limit is unknown, and deletes its session there", async () => {
    const { sid, t } = await startEpisode("ref");
    expect(await aliveUpstream(sid)).toBe(true);
    const deletesBefore = (await ref.stats()).requests.delete ?? 0;
    const feed = endedEvents(t.id);

    await pg.recorder.sweep(t.last_activity_at + 16 * MIN);
    expect((await pg.store.summary(t.id))?.end_reason).toBeNull();
    expect(await aliveUpstream(sid)).toBe(true);

    await pg.recorder.sweep(t.last_activity_at + 16 * MIN + 1);
    await pg.recorder.idle();
    const ended = await pg.store.summary(t.id);
    expect(ended).toMatchObject({ end_reason: "timeout", ended_at: t.last_activity_at + 16 * MIN });
    expect(ended?.error).toBe(
      `no request for 16 min (server "ref"'s idle limit is unknown; the spec's is 15 min): the playground ended the episode and deleted its session`,
    );
    // The /delete went through the relay to the server, which no longer has the session...
    expect((await ref.stats()).requests.delete).toBe(deletesBefore + 1);
    expect(await aliveUpstream(sid)).toBe(false);
    // ...and recording that /delete did not turn the timeout into "closed by the user".
    expect((await pg.store.summary(t.id))?.end_reason).toBe("timeout");
    expect(feed.events).toEqual([
      {
        type: "ended",
        id: t.id,
        end_reason: "timeout",
        error: ended?.error,
        ended_at: t.last_activity_at + 16 * MIN,
      },
    ]);
    feed.stop();
  });

  it("uses the server's own idle limit where the playground knows it, and counts keep-alive pings as activity", async () => {
    const { sid, t } = await startEpisode("known");
    // A tab's keep-alive ping a minute later moves the last activity on.
    await new Promise((r) => setTimeout(r, 20));
    await pg.clientFor("known").ping(sid);
    await pg.recorder.idle();
    const pinged = (await pg.store.summary(t.id))!.last_activity_at;
    expect(pinged).toBeGreaterThan(t.last_activity_at);

    await pg.recorder.sweep(t.last_activity_at + 3 * MIN + 1);
    expect((await pg.store.summary(t.id))?.end_reason).toBeNull();
    await pg.recorder.sweep(pinged + 3 * MIN + 1);
    const ended = await pg.store.summary(t.id);
    expect(ended).toMatchObject({ end_reason: "timeout", ended_at: pinged + 3 * MIN });
    expect(ended?.error).toMatch(/^no request for 3 min \(past server "known"'s idle limit of 2 min\)/);
    expect(await aliveUpstream(sid)).toBe(false);
  });

  it("leaves episodes with a request within their limit running, and their sessions alone", async () => {
    const { sid, t } = await startEpisode("ref");
    await pg.recorder.sweep(t.last_activity_at + 10 * MIN);
    expect((await pg.store.summary(t.id))?.end_reason).toBeNull();
    expect(await aliveUpstream(sid)).toBe(true);
    await pg.clientFor("ref").delete(sid);
    await pg.recorder.idle();
    expect((await pg.store.summary(t.id))?.end_reason).toBe("user_closed");
  });
});
