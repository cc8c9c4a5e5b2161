// Real processes for the replica tests: app replicas (./replica-server.ts) on one PostgreSQL
// database, a shared ORS server they relay to, an episode played through a replica's relay, and a
// reader of the live SSE feeds that waits for what it expects. Processes stop by their PID.
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { readSseFrames } from "@/lib/ors/protocol";
import { anyFreeLoopbackPort } from "../../scripts/bench-proc";
import { type Proc, start } from "../environments/helpers";
import { REPO_ROOT, type SpawnedServer, spawnOrsServer } from "../relay/helpers";

/** Passed to every app process: no access token (these tests are about the store, not access). */
export const APP_AUTH_ENV = { PLAYGROUND_AUTH: "none", PLAYGROUND_TOKEN: "" };

export interface Replica {
  url: string;
  pid: number;
  proc: Proc;
  /** SIGTERM, then SIGKILL after 15 s. */
  stop(): Promise<void>;
  /** kill -9: no goodbye to the database, the sockets just close. */
  kill9(): Promise<void>;
}

/** Starts one replica on `databaseUrl` with the servers of `ORS_SERVERS`; resolves once it listens. */
export async function startReplica(env: Record<string, string>): Promise<Replica> {
  const proc = start(["--import", "tsx", "tests/replicas/replica-server.ts"], {
    cwd: REPO_ROOT,
    env: { ...APP_AUTH_ENV, ...env },
  });
  const [, url] = await proc.waitFor(/ on (http:\/\/\S+) \(pid/, 60_000);
  const pid = proc.child.pid!;
  return {
    url: url!,
    pid,
    proc,
    stop: async () => {
      await proc.stop();
    },
    async kill9() {
      const exited = once(proc.child, "exit");
      process.kill(pid, "SIGKILL");
      await exited;
    },
  };
}

/** A temporary data folder (which a replica on PostgreSQL must leave untouched). */
export function tempDataDir(): { dir: string; remove(): void } {
  const parent = mkdtempSync(path.join(os.tmpdir(), "ors-replica-"));
  return { dir: path.join(parent, "data"), remove: () => rmSync(parent, { recursive: true, force: true }) };
}

/** The standalone ORS host (scripts/serve.ts) as the server both replicas relay to. */
export async function startSharedServer(): Promise<SpawnedServer> {
  return spawnOrsServer(await anyFreeLoopbackPort(), { ORS_API_KEYS: "" });
}

/** Plays ORS through a replica's relay (`<replica>/api/servers/<server>`). */
export function relayClient(replicaUrl: string, server: string) {
  const base = `${replicaUrl}/api/servers/${server}`;
  const post = async (p: string, body: unknown, sid?: string) =>
    fetch(`${base}${p}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(sid ? { "x-session-id": sid } : {}) },
      body: JSON.stringify(body),
    });
  return {
    async createEpisode(env: string, split: string, index: number): Promise<string> {
      const res = await fetch(`${base}/create_session`, { method: "POST" });
      if (res.status !== 200) throw new Error(`create_session: ${res.status} ${await res.text()}`);
      const { sid } = (await res.json()) as { sid: string };
      const created = await post("/create", { env_name: env, split, index }, sid);
      if (created.status !== 200) throw new Error(`create: ${created.status} ${await created.text()}`);
      return sid;
    },
    async prompt(env: string, sid: string): Promise<unknown> {
      return (await fetch(`${base}/${env}/prompt`, { headers: { "x-session-id": sid } })).json();
    },
    /** A tool call's result (chunk…end joined), or throws with the error event or status. */
    async call(
      env: string,
      sid: string,
      tool: string,
      input: unknown,
    ): Promise<{ reward?: number; finished?: boolean }> {
      const res = await post(`/${env}/call`, { name: tool, input }, sid);
      const text = await res.text();
      if (res.status !== 200) throw new Error(`call ${tool}: ${res.status} ${text}`);
      const frames = [...text.matchAll(/event: (\w+)\ndata: ?(.*)\n\n/g)].map((m) => ({
        event: m[1],
        data: m[2],
      }));
      const error = frames.find((f) => f.event === "error");
      if (error) throw new Error(`call ${tool}: ${error.data}`);
      const json = frames
        .filter((f) => f.event === "chunk" || f.event === "end")
        .map((f) => f.data)
        .join("");
      return (JSON.parse(json) as { output: { reward?: number; finished?: boolean } }).output;
    },
    async delete(sid: string): Promise<number> {
      return (await post("/delete", {}, sid)).status;
    },
  };
}

export interface FeedEvent {
  event: string;
  data: Record<string, unknown>;
}

/** Reads an SSE feed of a replica into a list; `until` waits for an event matching a predicate. */
export function watchFeed(url: string) {
  const ctrl = new AbortController();
  const events: FeedEvent[] = [];
  const waiters: { test: (e: FeedEvent) => boolean; resolve: (e: FeedEvent) => void }[] = [];
  let failure: Error | null = null;
  const done = (async () => {
    const res = await fetch(url, { signal: ctrl.signal, headers: { accept: "text/event-stream" } });
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    for await (const f of readSseFrames(res.body!, ctrl.signal)) {
      if (f.kind !== "event") continue;
      const e = { event: f.event, data: JSON.parse(f.data) as Record<string, unknown> };
      events.push(e);
      for (const w of waiters.splice(0)) {
        if (w.test(e)) w.resolve(e);
        else waiters.push(w);
      }
    }
  })().catch((err: Error) => {
    if (!ctrl.signal.aborted) failure = err;
  });
  return {
    events,
    /** The first event (seen already or to come) matching `test`, within `timeoutMs`. */
    until(test: (e: FeedEvent) => boolean, timeoutMs = 15_000): Promise<FeedEvent> {
      const seen = events.find(test);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          const i = waiters.findIndex((w) => w.resolve === ok);
          if (i >= 0) waiters.splice(i, 1);
          reject(
            failure ??
              new Error(
                `no matching event on ${url} within ${timeoutMs} ms; saw ${events.map((e) => e.event).join(", ")}`,
              ),
          );
        }, timeoutMs);
        const ok = (e: FeedEvent) => {
          clearTimeout(timer);
          resolve(e);
        };
        waiters.push({ test, resolve: ok });
      });
    },
    async close() {
      ctrl.abort();
      await done;
    },
  };
}

/** JSON of a replica's API. */
export async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/**
 * The `http {}` part of an nginx config in front of app replicas (docs/team-scale.md shows the
 * same): a session's requests (X-Session-ID) always reach the same replica, so its calls are
 * recorded in order by one recorder; requests without a session are spread; nothing is buffered,
 * so SSE (tool calls, live feeds) streams through.
 */
export function replicasBehindNginx(replicaUrls: string[]): string {
  return `
  map $http_x_session_id $replica_key {
    "" $request_id;
    default $http_x_session_id;
  }
  upstream replicas {
    hash $replica_key consistent;
${replicaUrls.map((u) => `    server ${new URL(u).host};`).join("\n")}
    keepalive 16;
  }
  server {
    listen 127.0.0.1:{{PORT}};
    location / {
      proxy_pass http://replicas;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 1h;
    }
  }`;
}

/**
 * The shared ORS server (as `shared`) and two app replicas, A and B, on one PostgreSQL database,
 * each with its own data folder: what the replica tests start first.
 */
export async function startTwoReplicas(
  databaseUrl: string,
  dataDirs: [string, string],
): Promise<{ shared: SpawnedServer; a: Replica; b: Replica }> {
  const shared = await startSharedServer();
  const env = { PLAYGROUND_DATABASE_URL: databaseUrl, ORS_SERVERS: `shared=${shared.url}` };
  const [a, b] = await Promise.all(dataDirs.map((dir) => startReplica({ ...env, PLAYGROUND_DATA_DIR: dir })));
  return { shared, a: a!, b: b! };
}

/** Two replicas on one database and the shared server they relay to, with their data folders. */
export interface TwoReplicas {
  shared: SpawnedServer;
  a: Replica;
  b: Replica;
  dataA: { dir: string; remove(): void };
  dataB: { dir: string; remove(): void };
}

/**
 * Two replicas on `databaseUrl` for the tests of one describe block: started before them, stopped
 * and their data folders removed after.
 */
export function twoReplicasAround(databaseUrl: string): TwoReplicas {
  const r = { dataA: tempDataDir(), dataB: tempDataDir() } as TwoReplicas;
  beforeAll(async () => {
    Object.assign(r, await startTwoReplicas(databaseUrl, [r.dataA.dir, r.dataB.dir]));
  }, 120_000);
  afterAll(async () => {
    await Promise.all([r.a?.stop(), r.b?.stop(), r.shared?.stop()]);
    r.dataA.remove();
    r.dataB.remove();
  });
  return r;
}
