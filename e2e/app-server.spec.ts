// The app's server entry (lib/app-server) on the production build: the ORS fast path is what serves
// ORS requests (a header only it sets), ORS_FAST_PATH=0 hands them to Next's route handler, and
// `npm start` honours PORT and prints the URL to open with its token; both it and `npm run dev` run a
// server given with `-- --spawn`. `npm run dev`, the same entry in Next's development mode, refuses
// what production refuses. The HTML export keeps its own strict Content-Security-Policy. Started off loopback (`--host
// 0.0.0.0`, `--host ::`, the CLI's `start --host 0.0.0.0 --open`) on a machine whose interfaces have
// IPv6 addresses, it starts and answers on each of them.
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { networkInterfaces } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { collectOutput, stopGroup } from "../tests/support/child-output";
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

test("the HTML export keeps its own strict Content-Security-Policy; every other answer carries the app's", async () => {
  const base = `http://127.0.0.1:${PORT}`;
  const auth = { authorization: `Bearer ${process.env.PLAYGROUND_TOKEN}` };
  const relay = `${base}/api/servers/local`;
  const { sid } = (await (
    await fetch(`${relay}/create_session`, { method: "POST", headers: auth })
  ).json()) as {
    sid: string;
  };
  const create = await fetch(`${relay}/create`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json", "x-session-id": sid },
    body: JSON.stringify({ env_name: "math", split: "train", index: 0 }),
  });
  expect(create.status).toBe(200);
  await expect
    .poll(async () => {
      const res = await fetch(`${base}/api/trajectories/by-session/local/${sid}`, { headers: auth });
      return res.status;
    })
    .toBe(200);
  const { id } = (await (
    await fetch(`${base}/api/trajectories/by-session/local/${sid}`, { headers: auth })
  ).json()) as {
    id: string;
  };
  const strict = /^default-src 'none'; .*frame-ancestors 'none'; sandbox$/;
  for (const path of [`/api/trajectories/${id}/export`, `/api/trajectories/export?format=html&limit=1`]) {
    const res = await fetch(`${base}${path}`, { headers: auth });
    expect(res.status, path).toBe(200);
    expect(res.headers.get("content-security-policy"), path).toMatch(strict);
    expect(res.headers.get("x-frame-options"), path).toBe("DENY");
    await res.text();
  }
  for (const path of ["/", "/api/trajectories", `/api/trajectories/${id}`]) {
    const res = await fetch(`${base}${path}`, { headers: auth });
    expect(res.headers.get("content-security-policy"), path).toBe("frame-ancestors 'none'");
    await res.text();
  }
});

/** A server for `--spawn`: the spawn tests' tiny ORS server (a fixed name, its port as {port}). */
const TINY_SPAWN = [
  "--spawn",
  `"${process.execPath}" tests/spawn/fixtures/tiny-ors.mjs --port {port}`,
  "--spawn-name",
  "tiny",
];

/** The spawned server `tiny`'s state, as its log API says. */
async function spawnedState(base: string): Promise<string | null> {
  const res = await fetch(`${base}/api/servers/tiny/log`, {
    headers: { authorization: `Bearer ${process.env.PLAYGROUND_TOKEN}` },
  });
  return res.ok ? ((await res.json()) as { status: { state: string } }).status.state : null;
}

test("`npm start` listens on PORT, on loopback, and runs a server given with -- --spawn", async () => {
  test.setTimeout(120_000);
  const child: ChildProcess = spawn("npm", ["start", "--", ...TINY_SPAWN], {
    env: { ...process.env, PORT: String(NPM_START_PORT), PLAYGROUND_DATA_DIR: tempDataDir() },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  try {
    const { out } = collectOutput(child);
    await expect.poll(out, { timeout: 90_000 }).toContain(`on http://127.0.0.1:${NPM_START_PORT}`);
    // The URL to open carries the token (the suite's PLAYGROUND_TOKEN here, inherited).
    await expect
      .poll(out)
      .toContain(`Open: http://127.0.0.1:${NPM_START_PORT}/?token=${process.env.PLAYGROUND_TOKEN}`);
    const health = await fetch(`http://127.0.0.1:${NPM_START_PORT}/api/ors/health`);
    expect(health.status).toBe(200);
    expect(health.headers.get(FAST_PATH_HEADER)).toBe("1");
    expect((await fetch(`http://127.0.0.1:${NPM_START_PORT}/`)).status).toBe(200);
    // The server given with --spawn runs beside it, says so, and is ready.
    await expect.poll(out, { timeout: 30_000 }).toMatch(/\[tiny\] ready at http:\/\/127\.0\.0\.1:\d+/);
    expect(out()).toMatch(/Runs tiny: .*tiny-ors\.mjs --port \{port\}/);
    expect(await spawnedState(`http://127.0.0.1:${NPM_START_PORT}`)).toBe("ready");
  } finally {
    // npm runs the entry in a child: stop the whole process group this test started.
    await stopGroup(child);
  }
});

test("`npm run dev` applies the same request policy, and runs a server given with --spawn", async () => {
  test.setTimeout(180_000);
  const child: ChildProcess = spawn("npm", ["run", "dev", "--", "--port", String(DEV_PORT), ...TINY_SPAWN], {
    env: { ...process.env, PLAYGROUND_DATA_DIR: tempDataDir() },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const base = `http://127.0.0.1:${DEV_PORT}`;
  try {
    const { out } = collectOutput(child);
    await expect.poll(out, { timeout: 120_000 }).toContain(`(development mode) on ${base}`);
    await expect.poll(out).toContain(`Open: ${base}/?token=`);
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
    await expect.poll(out, { timeout: 30_000 }).toMatch(/\[tiny\] ready at http:\/\/127\.0\.0\.1:\d+/);
    expect(await spawnedState(base)).toBe("ready");
  } finally {
    await stopGroup(child);
  }
});

// ---------------------------------------------------------------------------------------------
// Off loopback: every interface, in every spelling the machine reports.

/** The status of a GET to `address`:`port` with the Host a client would send for that address. */
function statusVia(address: string, port: number, path: string, headers: Record<string, string> = {}) {
  const host = new URL(`http://${address.includes(":") ? `[${address}]` : address}:${port}/`).host;
  return new Promise<number>((resolve, reject) => {
    const req = request({ host: address, port, path, headers: { host, ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on("error", reject);
    req.end();
  });
}

/** This machine's addresses of a family that a connection can use (link-local ones need a zone id). */
function addressesOf(families: string[]): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a) => a && families.includes(a.family) && !a.address.startsWith("fe80"))
    .map((a) => a!.address);
}

/** Starts a command in its own process group; resolves with what it printed once `ready` matches. */
async function startUntil(command: string, args: string[], ready: RegExp, env: NodeJS.ProcessEnv) {
  const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const { out, err } = collectOutput(child);
  await expect
    .poll(() => (child.exitCode === null ? out() : `exited ${child.exitCode}: ${out()}${err()}`), {
      timeout: 90_000,
    })
    .toMatch(ready);
  return { out, err, match: out().match(ready)!, stop: () => stopGroup(child) };
}

for (const [host, families] of [
  ["0.0.0.0", ["IPv4"]],
  ["::", ["IPv4", "IPv6"]],
] as const)
  test(`\`npm start -- --host ${host}\` starts and answers on every address of this machine`, async () => {
    test.setTimeout(120_000);
    expect(addressesOf(["IPv6"]).length, "this machine has an IPv6 address besides loopback").toBeGreaterThan(
      1,
    );
    const app = await startUntil(
      "npm",
      ["start", "--", "--host", host, "--port", "0"],
      /ORS Playground \(production build\) on http:\/\/(\S+):(\d+)\n {2}Open: (\S+)/,
      { ...process.env, PLAYGROUND_DATA_DIR: tempDataDir() },
    );
    try {
      expect(app.err()).not.toMatch(/is not a host name or address/);
      const port = Number(app.match[2]);
      const token = new URL(app.match[3]!).searchParams.get("token");
      expect(token).toBe(process.env.PLAYGROUND_TOKEN);
      for (const address of addressesOf([...families])) {
        expect(await statusVia(address, port, "/api/ors/health"), `health via ${address}`).toBe(200);
        expect(
          await statusVia(address, port, "/api/servers", { authorization: "" }),
          `no token via ${address}`,
        ).toBe(401);
        expect(
          await statusVia(address, port, "/api/servers", { authorization: `Bearer ${token}` }),
          `token via ${address}`,
        ).toBe(200);
        expect(
          await statusVia(address, port, "/", { host: "attacker.example" }),
          `foreign Host via ${address}`,
        ).toBe(403);
      }
    } finally {
      await app.stop();
    }
  });

test("the CLI's `start --host 0.0.0.0 --open` starts, prints the token URL and opens it", async () => {
  test.setTimeout(120_000);
  // A stand-in for the desktop's opener: it records the URL it is asked to open.
  const bin = tempDataDir();
  const opened = path.join(bin, "opened.txt");
  writeFileSync(path.join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s' "$1" > "${opened}"\n`);
  chmodSync(path.join(bin, "xdg-open"), 0o755);
  const app = await startUntil(
    process.execPath,
    [
      "bin/ors-playground.mjs",
      "start",
      "--host",
      "0.0.0.0",
      "--port",
      "0",
      "--data-dir",
      tempDataDir(),
      "--open",
    ],
    /Open\s+(http:\/\/\S+)[\s\S]*Opened http:\/\/\S+ in your browser \(xdg-open\)/,
    { ...process.env, PATH: `${bin}:${process.env.PATH}` },
  );
  try {
    const openUrl = app.match[1]!;
    expect(openUrl).toMatch(new RegExp(`^http://[^/]+:\\d+/\\?token=${process.env.PLAYGROUND_TOKEN}$`));
    expect(readFileSync(opened, "utf8")).toBe(openUrl);
    const { port, hostname } = new URL(openUrl);
    expect(hostname).not.toBe("127.0.0.1");
    expect(await statusVia("127.0.0.1", Number(port), "/api/servers", { authorization: "" })).toBe(401);
    expect(
      await statusVia(hostname, Number(port), "/api/servers", {
        authorization: `Bearer ${process.env.PLAYGROUND_TOKEN}`,
      }),
    ).toBe(200);
  } finally {
    await app.stop();
  }
});
