// A fixture in front of an ORS server for the workers' tests and bench:runs (tests/runs/workers.test.ts,
// scripts/bench-runs.ts): every `/create` and `/call` takes 50–200 ms more (a latency-bound server),
// it counts the sessions open at once (the most ever: what a cap must hold), logs every request with
// its session and time, and answers a burst of 429s with Retry-After on demand. A real process's
// worth of behaviour on a node:http server on loopback, port 0.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

// Self-contained (no test helpers): scripts/bench-runs-workers.ts runs it under plain tsx too.
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (d: Buffer) => parts.push(d));
    req.on("end", () => resolve(Buffer.concat(parts)));
    req.on("error", reject);
  });
}

export interface ProxiedRequest {
  /** When it arrived. */
  at: number;
  path: string;
  status: number;
  /** The session (the request's X-Session-ID, or the sid a /create_session answered). */
  sid: string | null;
}

export interface LatencyProxy {
  url: string;
  /** Sessions open now and the most open at once. */
  sessions(): { open: number; most: number };
  /** The ids of the sessions open now. */
  openSids(): string[];
  log: ProxiedRequest[];
  /** The next `n` requests are answered 429 with `Retry-After: seconds`. */
  burst(n: number, seconds: number): void;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startLatencyProxy(
  upstream: string,
  o: { minMs?: number; maxMs?: number } = {},
): Promise<LatencyProxy> {
  const minMs = o.minMs ?? 50;
  const maxMs = o.maxMs ?? 200;
  const open = new Set<string>();
  let most = 0;
  let refuse = 0;
  let retryAfter = 1;
  const log: ProxiedRequest[] = [];
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const arrived = Date.now();
    const body = await readBody(req);
    const path = req.url ?? "/";
    const sid = (req.headers["x-session-id"] as string | undefined) ?? null;
    if (refuse > 0) {
      refuse--;
      log.push({ at: arrived, path, status: 429, sid });
      res.writeHead(429, { "content-type": "application/json", "retry-after": String(retryAfter) });
      res.end(JSON.stringify({ detail: "busy: come back later" }));
      return;
    }
    if (path === "/create" || path.endsWith("/call")) await sleep(minMs + Math.random() * (maxMs - minMs));
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === "string" && k !== "host" && k !== "content-length") headers.set(k, v);
    const up = await fetch(`${upstream}${path}`, {
      method: req.method,
      headers,
      body: req.method === "GET" || req.method === "HEAD" ? undefined : new Uint8Array(body),
      redirect: "manual",
    });
    const answer = Buffer.from(await up.arrayBuffer());
    let seen = sid;
    if (path === "/create_session" && up.status === 200) {
      // JSON `{sid}`, or the reference's SSE (`event: task_id` carrying it).
      const text = answer.toString();
      seen = /"sid"\s*:\s*"([^"]+)"/.exec(text)?.[1] ?? /data: ?(\S+)/.exec(text)?.[1] ?? null;
      if (seen) open.add(seen);
      most = Math.max(most, open.size);
    }
    if ((path === "/delete" || path === "/delete_session") && sid) open.delete(sid);
    log.push({ at: arrived, path, status: up.status, sid: seen });
    const out = Object.fromEntries(
      [...up.headers].filter(([k]) => k !== "content-length" && k !== "content-encoding"),
    );
    res.writeHead(up.status, out);
    res.end(answer);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      res.writeHead(502, { "content-type": "application/json" });
      res.end(JSON.stringify({ detail: `proxy: ${err.message}` }));
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sessions: () => ({ open: open.size, most }),
    openSids: () => [...open],
    log,
    burst(n, seconds) {
      refuse = n;
      retryAfter = seconds;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
