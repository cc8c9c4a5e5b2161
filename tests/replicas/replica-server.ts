// One app replica for the replica tests, as a real process: the composition root (lib/playground.ts)
// built from the environment as the server entry builds it (PLAYGROUND_DATABASE_URL and all), the
// relay's node:http way in for relayed ORS requests (the server entry's fast path), and the app's
// own API route handlers (app/api/**/route.ts) served on node:http, routed by their folder names as
// Next routes them. Next's router and pages are left out, so these tests need no
// production build (the unit tests run before `npm run build`).
// Run: node --import tsx tests/replicas/replica-server.ts [--port N]   (prints "replica ... on URL")
import { readdirSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { Readable } from "node:stream";
import { allowServerOnlyUnderNode } from "../../lib/app-server/server-only-hook";
import { headersOf, writeFetchAnswer } from "../support/fetch-answer";
import { readyPlayground } from "../support/process-playground";

await allowServerOnlyUnderNode();

const REPO = path.resolve(import.meta.dirname, "../..");
type Handler = (
  req: Request,
  ctx: { params: Promise<Record<string, string | string[]>> },
) => Promise<Response>;
interface Route {
  /** Segments: a name, `[x]` (one segment), `[...x]` (one or more), `[[...x]]` (zero or more). */
  segments: string[];
  module: Record<string, unknown>;
}

/** Every `route.ts` under app/api, most specific first (fixed names before parameters). */
async function loadRoutes(): Promise<Route[]> {
  const routes: Route[] = [];
  const walk = async (dir: string, segments: string[]) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) await walk(path.join(dir, e.name), [...segments, e.name]);
      else if (e.name === "route.ts")
        routes.push({ segments, module: (await import(path.join(dir, e.name))) as Record<string, unknown> });
    }
  };
  await walk(path.join(REPO, "app/api"), ["api"]);
  const rank = (s: string) => (s.startsWith("[[") ? 3 : s.startsWith("[...") ? 2 : s.startsWith("[") ? 1 : 0);
  return routes.sort((a, b) => {
    for (let i = 0; i < Math.max(a.segments.length, b.segments.length); i++) {
      const d = rank(a.segments[i] ?? "") - rank(b.segments[i] ?? "");
      if (d) return d;
    }
    return b.segments.length - a.segments.length;
  });
}

function match(route: Route, parts: string[]): Record<string, string | string[]> | null {
  const params: Record<string, string | string[]> = {};
  for (let i = 0; i < route.segments.length; i++) {
    const s = route.segments[i]!;
    const rest = /^\[\[?\.\.\.(\w+)\]\]?$/.exec(s);
    if (rest) {
      if (parts.length - i < (s.startsWith("[[") ? 0 : 1)) return null;
      params[rest[1]!] = parts.slice(i);
      return params;
    }
    if (i >= parts.length) return null;
    const one = /^\[(\w+)\]$/.exec(s);
    if (one) params[one[1]!] = parts[i]!;
    else if (s !== parts[i]) return null;
  }
  return parts.length === route.segments.length ? params : null;
}

const routes = await loadRoutes();
const { listenHttp } = await import("@/lib/ors/host/node-adapter");

const playground = await readyPlayground("the replica");

const app = async (req: Request): Promise<Response> => {
  const parts = new URL(req.url).pathname.split("/").filter(Boolean).map(decodeURIComponent);
  for (const route of routes) {
    const params = match(route, parts);
    if (!params) continue;
    const handler = route.module[req.method] as Handler | undefined;
    if (!handler) return Response.json({ detail: "method not allowed" }, { status: 405 });
    return handler(req, { params: Promise.resolve(params) });
  }
  return Response.json({ detail: "not found" }, { status: 404 });
};

/** A node request to the route handlers and their answer back, streamed (SSE feeds stay open). */
async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const ctrl = new AbortController();
  res.on("close", () => ctrl.abort());
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const answer = await app(
    new Request(`http://${req.headers.host ?? "replica.invalid"}${req.url}`, {
      method: req.method,
      headers: headersOf(req),
      body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
      duplex: "half",
      signal: ctrl.signal,
    } as RequestInit),
  );
  await writeFetchAnswer(res, answer);
}

const { relayTarget } = await import("@/lib/app-server/relay-path");
const portArg = process.argv.indexOf("--port");
const listening = await listenHttp(
  (req, res) => {
    // Relayed ORS requests go straight to the relay on node:http, as the server entry's fast path
    // sends them (lib/app-server); everything else to the route handlers.
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const relayed = relayTarget(req.method ?? "GET", q < 0 ? url : url.slice(0, q));
    if (relayed) return void playground.relay.handleNode(req, res, relayed.name, relayed.orsPath);
    serve(req, res).catch((err: unknown) => {
      console.error(`[replica] ${req.method} ${req.url} failed:`, err);
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end('{"detail":"Internal server error"}');
    });
  },
  { host: "127.0.0.1", port: portArg > 0 ? Number(process.argv[portArg + 1]) : 0 },
);
console.log(`replica ${playground.storage.kind} on ${listening.url} (pid ${process.pid})`);

const stop = () => {
  listening
    .close(500)
    .then(() => playground.close())
    .then(
      () => process.exit(0),
      () => process.exit(1),
    );
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
