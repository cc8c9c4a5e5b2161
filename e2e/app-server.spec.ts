// The app's server entry (lib/app-server) on the production build: the ORS fast path is what serves
// ORS requests (a header only it sets), ORS_FAST_PATH=0 hands them to Next's route handler, and
// `npm start` honours PORT. And `npm run dev`, the same entry in Next's development mode, refuses
// what production refuses.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { request } from "node:http";
import { expect, test } from "@playwright/test";
import { tempDataDir } from "./trajectories-helpers";

const PORT = Number(process.env.E2E_PORT ?? 3100);
const ROUTE_PORT = Number(process.env.E2E_ROUTE_PORT ?? PORT + 1);
const NPM_START_PORT = Number(process.env.E2E_NPM_START_PORT ?? 8678);
const DEV_PORT = Number(process.env.E2E_DEV_PORT ?? 8680);
const FAST_PATH_HEADER = "x-ors-fast-path";

/** The status of a GET sent with this `Host` header (fetch cannot set one). */
function statusWithHost(port: number, path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on("error", reject);
    req.end();
  });
}

/** A whole episode on the app's ORS host at `base`; the fast-path header of every answer. */
async function episodeHeaders(base: string): Promise<(string | null)[]> {
  const seen: (string | null)[] = [];
  const call = async (method: string, path: string, body?: unknown, sid?: string) => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (sid) headers["x-session-id"] = sid;
    const res = await fetch(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(res.status, `${method} ${path}`).toBe(200);
    seen.push(res.headers.get(FAST_PATH_HEADER));
    return res;
  };
  const { sid } = (await (await call("POST", "/create_session")).json()) as { sid: string };
  await call("POST", "/create", { env_name: "math", split: "train", index: 0 }, sid);
  await call("GET", "/math/prompt", undefined, sid);
  await (await call("POST", "/math/call", { name: "submit", input: { answer: "0" } }, sid)).text();
  await call("POST", "/delete", undefined, sid);
  await call("GET", "/health");
  return seen;
}

test("in production the fast path serves the ORS host, at /api/ors and at the root", async () => {
  for (const base of [`http://127.0.0.1:${PORT}/api/ors`, `http://127.0.0.1:${PORT}`])
    expect(await episodeHeaders(base)).toEqual(["1", "1", "1", "1", "1", "1"]);
  // Everything else is Next's.
  const page = await fetch(`http://127.0.0.1:${PORT}/`);
  expect(page.status).toBe(200);
  expect(page.headers.get(FAST_PATH_HEADER)).toBeNull();
  expect(page.headers.get("x-frame-options")).toBe("DENY");
  const api = await fetch(`http://127.0.0.1:${PORT}/api/servers/local/health`);
  expect(api.status).toBe(200);
  expect(api.headers.get(FAST_PATH_HEADER)).toBeNull();
});

test("with ORS_FAST_PATH=0 Next's route handler serves the same episode", async () => {
  for (const base of [`http://127.0.0.1:${ROUTE_PORT}/api/ors`, `http://127.0.0.1:${ROUTE_PORT}`])
    expect(await episodeHeaders(base)).toEqual([null, null, null, null, null, null]);
});

test("`npm start` listens on PORT, on loopback", async () => {
  test.setTimeout(120_000);
  const child: ChildProcess = spawn("npm", ["start"], {
    env: { ...process.env, PORT: String(NPM_START_PORT), PLAYGROUND_DATA_DIR: tempDataDir() },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  try {
    let out = "";
    child.stdout!.on("data", (d) => {
      out += d;
    });
    await expect.poll(() => out, { timeout: 90_000 }).toContain(`on http://127.0.0.1:${NPM_START_PORT}`);
    const health = await fetch(`http://127.0.0.1:${NPM_START_PORT}/api/ors/health`);
    expect(health.status).toBe(200);
    expect(health.headers.get(FAST_PATH_HEADER)).toBe("1");
    expect((await fetch(`http://127.0.0.1:${NPM_START_PORT}/`)).status).toBe(200);
  } finally {
    const exited = once(child, "exit");
    // npm runs the entry in a child: stop the whole process group this test started.
    process.kill(-child.pid!, "SIGTERM");
    await exited;
  }
});

test("`npm run dev` applies the same request policy", async () => {
  test.setTimeout(180_000);
  const child: ChildProcess = spawn("npm", ["run", "dev", "--", "--port", String(DEV_PORT)], {
    env: { ...process.env, PLAYGROUND_DATA_DIR: tempDataDir() },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const base = `http://127.0.0.1:${DEV_PORT}`;
  try {
    let out = "";
    child.stdout!.on("data", (d) => {
      out += d;
    });
    await expect.poll(() => out, { timeout: 120_000 }).toContain(`(development mode) on ${base}`);
    // Refused before Next compiles anything.
    for (const path of ["/", "/api/ors/health", "/api/trajectories", "/_next/webpack-hmr"])
      expect(await statusWithHost(DEV_PORT, path, "rebind.attacker.example"), path).toBe(403);
    const crossOrigin = await fetch(`${base}/api/servers`, {
      method: "POST",
      headers: { origin: "http://localhost:9999", "content-type": "application/json" },
      body: JSON.stringify({ name: "evil", url: "http://127.0.0.1:9" }),
    });
    expect(crossOrigin.status).toBe(403);
    const plain = await fetch(`${base}/api/trajectories/import`, {
      method: "POST",
      headers: { origin: base, "content-type": "text/plain" },
      body: "{}",
    });
    expect(plain.status).toBe(415);
    expect((await fetch(`${base}/%zz`)).status).toBe(400);
    // In dev the route handler serves the ORS host (so edited environments reload): no fast path.
    const health = await fetch(`${base}/api/ors/health`);
    expect(health.status).toBe(200);
    expect(health.headers.get(FAST_PATH_HEADER)).toBeNull();
  } finally {
    const exited = once(child, "exit");
    process.kill(-child.pid!, "SIGTERM");
    await exited;
  }
});
