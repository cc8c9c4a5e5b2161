// Test helpers for the client and the relay: an in-process fetch over a handler, a fetch over the
// relay, the standalone ORS server as a real second process, and tiny node:http servers.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLiveFeeds } from "@/lib/episodes/live";
import { createRecorder } from "@/lib/episodes/recorder";
import { createServerRegistry, type FetchHandler, type ServerRegistry } from "@/lib/registry";
import type { Resolver } from "@/lib/registry/address-policy";
import { createRelay, orsPathFromUrl, type Relay, type RelayOptions } from "@/lib/relay/relay";
import { openStore } from "@/lib/store/sqlite/store";
import { tempDir } from "../episodes/helpers";
import { headersOf, writeFetchAnswer } from "../support/fetch-answer";

export const REPO_ROOT = path.resolve(__dirname, "../..");

/** A fetch that answers every request with `handler` in process (no network). */
export function handlerFetch(handler: FetchHandler): typeof fetch {
  return (input, init) => handler(new Request(input, init));
}

/** A fetch that sends `http://app.test/api/servers/<name>/...` through the relay's handler. */
export function relayFetch(relay: Relay, extraHeaders: Record<string, string> = {}): typeof fetch {
  return async (input, init) => {
    const req = new Request(input, init);
    for (const [k, v] of Object.entries(extraHeaders)) req.headers.set(k, v);
    const m = /^\/api\/servers\/([^/]+)/.exec(new URL(req.url).pathname);
    if (!m) throw new Error(`not a relay URL: ${req.url}`);
    const name = decodeURIComponent(m[1]!);
    return relay.handle(req, name, orsPathFromUrl(req.url, name));
  };
}

export interface TestRelay {
  registry: ServerRegistry;
  relay: Relay;
  dataDir: string;
  cleanup(): void;
}

/** A registry in a temp data dir, with `ORS_SERVERS` entries, and a relay over it. */
export function makeRelay(
  local: FetchHandler,
  servers: Record<string, string>,
  opts: Partial<RelayOptions> & { env?: Record<string, string>; resolve?: Resolver } = {},
): TestRelay {
  const dataDir = mkdtempSync(path.join(tmpdir(), "relay-test-"));
  const registry = createServerRegistry({
    dataDir,
    env: {
      ORS_SERVERS: Object.entries(servers)
        .map(([n, u]) => `${n}=${u}`)
        .join(","),
      ...opts.env,
    },
    localHandler: () => local,
    resolve: opts.resolve,
  });
  const relay = createRelay({ registry, ...opts });
  return { registry, relay, dataDir, cleanup: () => rmSync(dataDir, { recursive: true, force: true }) };
}

export interface SpawnedServer {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  stop(): Promise<void>;
}

/**
 * Starts the standalone ORS server (`scripts/serve.ts`, with `args` after its own) on a loopback
 * port (0, the default: a free one the system picks) and resolves once it says where it listens.
 */
export async function spawnOrsServer(
  port = 0,
  env: Record<string, string> = {},
  args: string[] = [],
): Promise<SpawnedServer> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "scripts/serve.ts", "--port", String(port), "--host", "127.0.0.1", ...args],
    { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  let err = "";
  child.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once("exit", () => r()));
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      child.kill("SIGTERM");
    }
    const t = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {}
    }, 5_000);
    await exited;
    clearTimeout(t);
  };
  try {
    const url = await lineMatch(child, /ORS host listening on (http:\/\/\S+)/, 60_000, () => err);
    return { url, child, stderr: () => err, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/**
 * The first capture of `re` in a child's stdout (read line by line; the rest of its output is
 * drained so the child never blocks on a full pipe). Rejects when the child exits first or after
 * `timeoutMs`, with its stderr.
 */
export function lineMatch(
  child: ChildProcess,
  re: RegExp,
  timeoutMs: number,
  stderr: () => string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = "";
    const done = (fn: () => void) => {
      clearTimeout(timer);
      child.stdout!.off("data", onData);
      child.off("exit", onExit);
      child.stdout!.resume();
      fn();
    };
    const onData = (d: Buffer) => {
      buffered = (buffered + d.toString()).slice(-64 * 1024);
      const m = re.exec(buffered);
      if (m) done(() => resolve(m[1]!));
    };
    const onExit = (code: number | null) =>
      done(() =>
        reject(new Error(`${child.spawnargs.join(" ")} exited (${code}) before it listened: ${stderr()}`)),
      );
    const timer = setTimeout(
      () =>
        done(() =>
          reject(
            new Error(`${child.spawnargs.join(" ")} did not listen within ${timeoutMs} ms: ${stderr()}`),
          ),
        ),
      timeoutMs,
    );
    child.stdout!.on("data", onData);
    child.once("exit", onExit);
  });
}

/**
 * A tiny node:http server on a loopback port (127.0.0.1 unless another loopback address is given);
 * port 0 lets the system pick a free one, and `url` says which.
 */
export async function startHttpServer(
  port: number,
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  address = "127.0.0.1",
): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, address, () => resolve());
  });
  return {
    url: `http://${address}:${(server.address() as AddressInfo).port}`,
    server,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * A loopback port nothing listens on (for a server that is down): one the system gave out free and
 * took back. Nothing else is started on it in the test, and the system hands out others first.
 */
export async function unusedPort(): Promise<number> {
  const probe = await startHttpServer(0, () => {});
  await probe.close();
  return Number(new URL(probe.url).port);
}

/** Reads a node request body. */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (d: Buffer) => parts.push(d));
    req.on("end", () => resolve(Buffer.concat(parts)));
    req.on("error", reject);
  });
}

/**
 * Proxies a node request to a fetch handler (the real host, in process) and streams its answer.
 * `onChunk` sees each piece and may return "drop" to destroy the socket before writing it, or
 * "drop-after" to write it and then destroy the socket.
 */
export async function proxyToHandler(
  handler: FetchHandler,
  req: IncomingMessage,
  res: ServerResponse,
  onChunk?: (text: string) => "drop" | "drop-after" | undefined,
  preRead?: Buffer,
): Promise<void> {
  const body = req.method === "GET" || req.method === "HEAD" ? undefined : (preRead ?? (await readBody(req)));
  const ctrl = new AbortController();
  res.on("close", () => ctrl.abort());
  const answer = await handler(
    new Request(`http://proxy.invalid${req.url}`, {
      method: req.method,
      headers: headersOf(req),
      body: body ? new Uint8Array(body) : undefined,
      signal: ctrl.signal,
    }),
  );
  const dec = new TextDecoder();
  await writeFetchAnswer(res, answer, onChunk && ((bytes) => onChunk(dec.decode(bytes, { stream: true }))));
}

/** Serves a fetch handler over real HTTP on a loopback port (the shape of the app's routes). */
export function serveFetchHandler(port: number, handler: FetchHandler) {
  return startHttpServer(port, (req, res) => {
    void proxyToHandler(handler, req, res).catch(() => res.destroy());
  });
}

/** Starts the hostile test server (tests/fixtures/hostile-server) on a loopback port (0: a free one). */
export async function spawnHostileServer(port = 0, env: Record<string, string> = {}): Promise<SpawnedServer> {
  const child = spawn(
    process.execPath,
    [path.join(REPO_ROOT, "tests/fixtures/hostile-server/server.mjs"), "--port", String(port)],
    {
      env: { ...process.env, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  let err = "";
  child.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const url = await lineMatch(child, /listening on (http:\/\/\S+)/, 30_000, () => err);
  return {
    url,
    child,
    stderr: () => err,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((r) => child.once("exit", () => r()));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** A recorder on `t`'s relay writing to a new SQLite store in a temp folder, as the app records. */
export function recordRelay(t: TestRelay) {
  const store = openStore({ dir: tempDir(), retention: { maxCount: 0, maxAgeDays: 0 } });
  const recorder = createRecorder(store, {
    events: t.relay.events,
    live: createLiveFeeds(),
    sweepEveryMs: 0,
  });
  return {
    store,
    /** The summary of `sid`'s trajectory on `server`, once all that was relayed so far is written. */
    async summaryOf(server: string, sid: string) {
      await recorder.idle();
      return (await store.findBySession(server, sid))!;
    },
    async close() {
      recorder.stop();
      await store.close();
    },
  };
}
