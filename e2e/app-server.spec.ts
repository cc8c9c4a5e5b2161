// The app's server entry (lib/app-server) on the production build: the ORS fast path is what serves
// ORS requests (a header only it sets), ORS_FAST_PATH=0 hands them to Next's route handler, and
// `npm start` honours PORT.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { expect, test } from "@playwright/test";
import { tempDataDir } from "./trajectories-helpers";

const PORT = Number(process.env.E2E_PORT ?? 3100);
const ROUTE_PORT = Number(process.env.E2E_ROUTE_PORT ?? PORT + 1);
const NPM_START_PORT = Number(process.env.E2E_NPM_START_PORT ?? 8678);
const FAST_PATH_HEADER = "x-ors-fast-path";

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
