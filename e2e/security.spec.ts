// The app's security promises (docs/security.md) against the production build, in Chromium: a page
// on another origin (another site, and another port of the same site) tries every write and every
// read and nothing happens, though the browser holds the token's cookie; a foreign Host is refused
// on every kind of path; TRACE, CONNECT and bad escapes get 4xx; the app asks for its access token
// by default, on loopback too (the printed URL sets a cookie and leaves a clean address bar, scripts
// send a bearer token, ORS clients need none on loopback), PLAYGROUND_AUTH=none turns it off and
// says so; off loopback ORS clients need it too.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, request as httpRequest, type Server } from "node:http";
import { connect } from "node:net";
import { networkInterfaces } from "node:os";
import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import { collectOutput, stopGroup } from "../tests/support/child-output";
import { relayClient, tempDataDir, trajectoryOf } from "./trajectories-helpers";

const PORT = Number(process.env.E2E_PORT ?? 3100);
const ROUTE_PORT = Number(process.env.E2E_ROUTE_PORT ?? PORT + 1);
const ATTACK_PORT = Number(process.env.E2E_SECURITY_ATTACK_PORT ?? 8675);
const COUNTER_PORT = Number(process.env.E2E_SECURITY_COUNTER_PORT ?? 8676);
const APP = `http://127.0.0.1:${PORT}`;

// ---------------------------------------------------------------------------------------------
// Servers of the test: the attacker's static page, and an ORS server that counts what reaches it.

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

const ATTACK_PAGE =
  "<!doctype html><html><head><title>Win a prize</title></head><body><h1>Hello</h1></body></html>";

/** Counts the writes (every request but GET) an ORS server gets; answers like a tiny ORS server. */
function counterServer() {
  const seen = { writes: 0 };
  const server = createServer((req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") seen.writes++;
    req.resume();
    const json = (v: unknown) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(v));
    };
    if (req.url === "/health") return json({ status: "ok" });
    if (req.url === "/list_environments") return json(["count"]);
    if (req.url === "/create_session") return json({ sid: "counted" });
    return json({ ok: true });
  });
  return { server, seen };
}

// ---------------------------------------------------------------------------------------------
// The attacks, run inside the attacker's page (its origin is what the browser sends).

interface Attack {
  method: "POST" | "DELETE";
  path: string;
  body: string;
}

/** Runs every write and read from the page; says what the page could see of each. */
async function attackFrom(page: Page, writes: Attack[], reads: string[]): Promise<string[]> {
  return page.evaluate(
    async ({ app, writes, reads }) => {
      const out: string[] = [];
      const outcome = async (what: string, p: Promise<Response>) => {
        try {
          const r = await p;
          out.push(`${what}: ${r.type === "opaque" ? "opaque" : `read status ${r.status}`}`);
        } catch {
          out.push(`${what}: rejected`);
        }
      };
      const form = (url: string, enctype: string, i: number) =>
        new Promise<void>((resolve) => {
          const frame = document.createElement("iframe");
          frame.name = `sink${i}`;
          document.body.append(frame);
          const f = document.createElement("form");
          f.method = "POST";
          f.action = url;
          f.target = frame.name;
          f.enctype = enctype;
          // The classic trick: a text/plain form whose body parses as JSON.
          const input = document.createElement("input");
          input.name = '{"name":"evil","url":"http://127.0.0.1:9","step":0,"x":"';
          input.value = '"}';
          f.append(input);
          document.body.append(f);
          frame.addEventListener("load", () => resolve(), { once: true });
          f.submit();
        });
      let i = 0;
      for (const w of writes) {
        const url = app + w.path;
        await outcome(
          `${w.method} ${w.path} JSON`,
          fetch(url, { method: w.method, headers: { "content-type": "application/json" }, body: w.body }),
        );
        await outcome(
          `${w.method} ${w.path} text/plain`,
          fetch(url, { method: w.method, headers: { "content-type": "text/plain" }, body: w.body }),
        );
        await outcome(
          `${w.method} ${w.path} no-cors`,
          fetch(url, { method: w.method, mode: "no-cors", credentials: "include", body: w.body }),
        );
        if (w.method === "POST") {
          await form(url, "text/plain", i++);
          await form(url, "application/x-www-form-urlencoded", i++);
        }
      }
      // The token's cookie is HttpOnly: no script reads it, here or anywhere.
      out.push(
        `document.cookie: ${document.cookie.includes("ors_playground_token") ? "token visible" : "no token"}`,
      );
      for (const path of reads) {
        await outcome(`GET ${path}`, fetch(app + path));
        await outcome(`GET ${path} no-cors`, fetch(app + path, { mode: "no-cors" }));
        out.push(
          `EventSource ${path}: ${await new Promise<string>((resolve) => {
            const es = new EventSource(app + path);
            es.onopen = () => {
              es.close();
              resolve("open");
            };
            es.onerror = () => {
              es.close();
              resolve("error");
            };
          })}`,
        );
      }
      return out;
    },
    { app: APP, writes, reads },
  );
}

async function trajectoryCount(request: APIRequestContext): Promise<number> {
  return ((await (await request.get("/api/trajectories")).json()) as { total: number }).total;
}

async function serverNames(request: APIRequestContext): Promise<string[]> {
  return ((await (await request.get("/api/servers")).json()) as { name: string }[]).map((s) => s.name).sort();
}

test.describe("a page on another origin", () => {
  const attacker = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end(ATTACK_PAGE);
  });
  const counter = counterServer();
  let trajectoryId = "";
  /** A valid import body (a copy of the recorded trajectory under a new id). */
  let importBody = "";

  test.beforeAll(async ({ request }) => {
    await listen(attacker, ATTACK_PORT);
    await listen(counter.server, COUNTER_PORT);
    await request.delete("/api/servers/e2e-counter").catch(() => undefined);
    const added = await request.post("/api/servers", {
      data: { name: "e2e-counter", url: `http://127.0.0.1:${COUNTER_PORT}` },
    });
    expect(added.status()).toBe(201);
    // A recorded trajectory to aim fork, replay and delete at.
    const ors = relayClient(APP, "local");
    const { sid } = await ors.createSession();
    await ors.create(sid, { env_name: "math", split: "train", index: 0 });
    await ors.prompt("math", sid);
    await ors.callTool("math", sid, { name: "submit", input: { answer: "0" } });
    trajectoryId = (await trajectoryOf(APP, "local", sid, 1)).id;
    const exported = await (await request.get(`/api/trajectories/${trajectoryId}`)).json();
    importBody = JSON.stringify({ ...exported, id: "evil-import" });
    await request.delete("/api/trajectories/evil-import").catch(() => undefined);
  });

  test.afterAll(async ({ request }) => {
    await request.delete("/api/servers/e2e-counter").catch(() => undefined);
    await close(attacker);
    await close(counter.server);
  });

  for (const [label, attackerOrigin] of [
    ["another site (localhost, app on 127.0.0.1)", `http://localhost:${ATTACK_PORT}`],
    ["another port of the same site", `http://127.0.0.1:${ATTACK_PORT}`],
  ] as const) {
    test(`${label}: every write and read fails, and nothing changes`, async ({ page, request }) => {
      test.setTimeout(120_000);
      const writes: Attack[] = [
        { method: "POST", path: "/api/trajectories/import", body: importBody },
        { method: "POST", path: `/api/trajectories/${trajectoryId}/fork`, body: '{"step":0}' },
        { method: "POST", path: `/api/trajectories/${trajectoryId}/replay`, body: "{}" },
        { method: "DELETE", path: `/api/trajectories/${trajectoryId}`, body: "" },
        { method: "POST", path: "/api/servers", body: '{"name":"evil","url":"http://127.0.0.1:9"}' },
        { method: "DELETE", path: "/api/servers/e2e-counter", body: "" },
        { method: "POST", path: "/api/servers/e2e-counter/create_session", body: "" },
        { method: "POST", path: "/api/servers/e2e-counter/create", body: '{"env_name":"count"}' },
        { method: "POST", path: "/api/servers/e2e-counter/count/call", body: '{"name":"x","input":{}}' },
        { method: "POST", path: "/api/ors/create_session", body: "" },
        { method: "POST", path: "/create_session", body: "" },
        { method: "POST", path: "/math/call", body: '{"name":"submit","input":{"answer":"1"}}' },
      ];
      const reads = [
        "/api/trajectories",
        `/api/trajectories/${trajectoryId}`,
        "/api/trajectories/export",
        "/api/trajectories/live",
        "/api/trajectories/live/events",
        `/api/trajectories/${trajectoryId}/events`,
        "/api/servers",
        "/api/servers/local/list_environments",
        "/api/ors/list_environments",
        "/list_environments",
      ];
      const countBefore = await trajectoryCount(request);
      const serversBefore = await serverNames(request);
      expect(serversBefore).toContain("e2e-counter");

      // What reached the app, as Chromium's network layer saw it (opaque answers included).
      const reached: { method: string; url: string; status: number; acao: string | undefined }[] = [];
      page.on("response", (r) => {
        if (r.url().startsWith(APP))
          reached.push({
            method: r.request().method(),
            url: r.url(),
            status: r.status(),
            acao: r.headers()["access-control-allow-origin"],
          });
      });
      await page.goto(`${attackerOrigin}/attack.html`);
      await expect(page.getByRole("heading", { name: "Hello" })).toBeVisible();
      const seen = await attackFrom(page, writes, reads);

      // The page could read nothing, open no feed, and see no token.
      expect(seen).toContain("document.cookie: no token");
      for (const line of seen.filter((l) => !l.startsWith("document.cookie")))
        expect(line, line).toMatch(/: (rejected|opaque|error)$/);
      expect(seen.filter((l) => l.endsWith(": rejected")).length).toBeGreaterThanOrEqual(
        writes.length * 2 + reads.length,
      );
      // Every request that reached the app was refused, and none was made CORS-readable.
      const posts = writes.filter((w) => w.method === "POST").length;
      // Chromium reports the answers to no-cors requests and form posts; CORS-mode ones it blocks
      // (the simple text/plain POSTs, the reads, the feeds) end as failed requests instead.
      expect(reached.length).toBeGreaterThanOrEqual(posts * 3 + reads.length);
      for (const r of reached) {
        expect(r.status, `${r.method} ${r.url}`).toBe(403);
        expect(r.acao, `${r.method} ${r.url}`).toBeUndefined();
      }
      // Nothing changed on the server side.
      expect(await trajectoryCount(request)).toBe(countBefore);
      expect((await request.get(`/api/trajectories/${trajectoryId}`)).status()).toBe(200);
      expect((await request.get("/api/trajectories/evil-import")).status()).toBe(404);
      expect(await serverNames(request)).toEqual(serversBefore);
      expect(counter.seen.writes).toBe(0);
    });
  }

  test("the app's own pages still write (same origin, JSON)", async ({ page }) => {
    await page.goto("/");
    const result = await page.evaluate(async () => {
      const r = await fetch("/api/servers/e2e-counter/create_session", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      const plain = await fetch("/api/trajectories/import", {
        method: "POST",
        headers: { "content-type": "text/plain" },
        body: "{}",
      });
      return { status: r.status, body: await r.json(), plain: plain.status };
    });
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ sid: "counted" });
    expect(result.plain).toBe(415);
    expect(counter.seen.writes).toBe(1);
  });

  test("the attacks' bodies were valid: sent by a script on loopback they work", async ({ request }) => {
    const imported = await request.post("/api/trajectories/import", {
      data: importBody,
      headers: { "content-type": "application/json" },
    });
    expect(await imported.json()).toEqual({ imported: ["evil-import"], skipped: [] });
    expect((await request.delete("/api/trajectories/evil-import")).status()).toBe(200);
    const added = await request.post("/api/servers", { data: { name: "evil", url: "http://127.0.0.1:9" } });
    expect(added.status()).toBe(201);
    expect((await request.delete("/api/servers/evil")).status()).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------
// Below the browser: foreign Host names, methods and targets no route should see.

/** One raw HTTP exchange (node:http lets us send any Host and any method). */
function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  address = "127.0.0.1",
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: address, port, method, path, headers: { host: `${address}:${port}`, ...headers } },
      (res) => {
        let body = "";
        res.on("data", (d) => {
          body += d;
        });
        res.on("end", () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** The suite's access token as a script sends it (node:http adds nothing by itself). */
const BEARER = { authorization: `Bearer ${process.env.PLAYGROUND_TOKEN}` };

async function staticAsset(port: number): Promise<string> {
  const html = (await rawRequest(port, "GET", "/", BEARER)).body;
  const asset = /\/_next\/static\/[^"']+\.js/.exec(html)?.[0];
  expect(asset, "a script of the home page").toBeTruthy();
  return asset!;
}

for (const [label, port] of [
  ["next start with the ORS fast path", PORT],
  ["next start with ORS_FAST_PATH=0", ROUTE_PORT],
] as const) {
  test.describe(label, () => {
    test("a foreign Host is refused on every kind of path (DNS rebinding)", async () => {
      const asset = await staticAsset(port);
      expect((await rawRequest(port, "GET", asset, BEARER)).status).toBe(200);
      // The build's static files need no token (a share link's play page loads them: docs/security.md
      // "Share links"); with a foreign Host, nothing is answered, token or not.
      expect((await rawRequest(port, "GET", asset)).status).toBe(200);
      const paths: [string, string][] = [
        ["GET", "/"],
        ["GET", "/trajectories"],
        ["GET", asset],
        ["GET", "/api/trajectories"],
        ["GET", "/api/trajectories/live/events"],
        ["GET", "/api/servers"],
        ["POST", "/api/servers"],
        ["GET", "/api/servers/local/list_environments"],
        ["POST", "/api/servers/local/create_session"],
        ["GET", "/api/ors/list_environments"],
        ["POST", "/api/ors/create_session"],
        ["GET", "/api/ors/health"],
        ["GET", "/list_environments"],
        ["GET", "/math/tools"],
      ];
      for (const host of [`rebind.attacker.example:${port}`, "attacker.example", `127.0.0.1.nip.io:${port}`])
        for (const [method, path] of paths) {
          const r = await rawRequest(port, method, path, { ...BEARER, host });
          expect(r.status, `${method} ${path} Host ${host}`).toBe(403);
          expect(JSON.parse(r.body).detail).toMatch(/is not one of this app's names/);
        }
      // The same requests with the app's own names pass the check.
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`])
        expect((await rawRequest(port, "GET", "/api/ors/health", { host })).status).toBe(200);
    });

    test("TRACE, CONNECT, unknown methods and bad % escapes get a 4xx with a detail", async () => {
      for (const path of ["/", "/api/trajectories", "/api/ors/health", "/health"]) {
        const r = await rawRequest(port, "TRACE", path);
        expect(r.status, `TRACE ${path}`).toBe(405);
        expect(JSON.parse(r.body).detail).toMatch(/TRACE/);
        expect((await rawRequest(port, "PROPFIND", path)).status, `PROPFIND ${path}`).toBe(405);
      }
      for (const path of [
        "/%zz",
        "/trajectories/%E0%A4%A",
        "/api/trajectories/%zz",
        "/api/servers/local/%zz",
        "/api/ors/%",
        "/%zz/call",
      ]) {
        const r = await rawRequest(port, "GET", path);
        expect(r.status, path).toBe(400);
        expect(JSON.parse(r.body).detail).toMatch(/percent-escape/);
      }
      const connectReply = await new Promise<string>((resolve, reject) => {
        const s = connect(port, "127.0.0.1", () =>
          s.write("CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n"),
        );
        let out = "";
        s.on("data", (d) => {
          out += d;
        });
        s.on("end", () => resolve(out));
        s.on("error", reject);
      });
      expect(connectReply).toMatch(/^HTTP\/1\.1 405 /);
      // The server is still there.
      expect((await rawRequest(port, "GET", "/api/ors/health")).status).toBe(200);
    });
  });
}

// ---------------------------------------------------------------------------------------------
// The access token: by default on loopback, off with PLAYGROUND_AUTH=none, and off loopback.

interface StartedApp {
  child: ChildProcess;
  /** The base URL it printed. */
  base: string;
  /** The URL to open it printed (with ?token= when it asks for one), else the base URL. */
  openUrl: string;
  out(): string;
  err(): string;
  stop(): Promise<void>;
}

/**
 * The app's entry (`npm start`'s) on a free port (`--port 0`, read back from what it prints), with
 * its own data folder; `env` entries set to undefined are removed. Stopped by its PID.
 */
async function startApp(args: string[], env: Record<string, string | undefined>): Promise<StartedApp> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PLAYGROUND_DATA_DIR: tempDataDir(), ORS_SERVERS: "" };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete childEnv[k];
    else childEnv[k] = v;
  }
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "lib/app-server/main.ts", "--port", "0", ...args],
    {
      env: childEnv,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  const { out, err } = collectOutput(child);
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start: ${out()}${err()}`)), 90_000);
    child.stdout!.on("data", () => {
      // The access lines come right after the first line; wait for the ORS line that follows them.
      const m = /ORS Playground \(production build\) on (http:\/\/\S+)[\s\S]*ORS host for ORS clients/.exec(
        out(),
      );
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    // "close": after its output has been read to the end.
    child.once("close", (code) => reject(new Error(`exited with ${code}: ${err()}`)));
  });
  return {
    child,
    base,
    openUrl: /Open: (http:\/\/\S+)/.exec(out())?.[1] ?? base,
    out,
    err,
    stop: () => stopGroup(child),
  };
}

test.describe("on loopback, by default", () => {
  let app: StartedApp;
  let token = "";
  let port = 0;

  test.beforeAll(async () => {
    // No PLAYGROUND_TOKEN (the suite's is removed): a token is generated, as for a newcomer.
    app = await startApp(["--host", "127.0.0.1"], {
      PLAYGROUND_TOKEN: undefined,
      PLAYGROUND_AUTH: undefined,
    });
    token = new URL(app.openUrl).searchParams.get("token") ?? "";
    port = Number(new URL(app.base).port);
  });

  test.afterAll(async () => {
    await app.stop();
  });

  test("prints its URL with a generated token, and says it changes with every start", () => {
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(app.openUrl).toBe(`http://127.0.0.1:${port}/?token=${token}`);
    expect(app.out()).toMatch(
      /generated at startup and changes with every start; set PLAYGROUND_TOKEN to keep one/,
    );
    expect(app.out()).toMatch(/ORS clients \(\/api\/ors and the root\) need no token on loopback/);
  });

  test("without the token: 401 for pages (a page saying what to open) and APIs (JSON), on loopback", async () => {
    // node:http: nothing adds a token on the way.
    const page = await rawRequest(port, "GET", "/trajectories");
    expect(page.status).toBe(401);
    expect(page.body).toMatch(/Access token needed/);
    expect(page.body).toContain(`http://127.0.0.1:${port}/?token=…`);
    for (const [method, path] of [
      ["GET", "/"],
      ["GET", "/api/trajectories"],
      ["GET", "/api/trajectories/live"],
      ["GET", "/api/servers"],
      ["GET", "/api/servers/local/list_environments"],
      ["POST", "/api/servers/local/create_session"],
      ["DELETE", "/api/trajectories/anything"],
    ] as const) {
      const r = await rawRequest(port, method, path);
      expect(r.status, `${method} ${path}`).toBe(401);
      if (path.startsWith("/api/"))
        expect(JSON.parse(r.body).detail, path).toMatch(/requires its access token/);
    }
    for (const host of ["localhost", "[::1]"])
      expect((await rawRequest(port, "GET", "/api/trajectories", { host: `${host}:${port}` })).status).toBe(
        401,
      );
  });

  test("the token URL sets the cookie and redirects without the token; Bearer works; a wrong token is refused", async () => {
    const opened = await fetch(`${app.base}/trajectories?token=${token}&q=x`, {
      redirect: "manual",
      headers: { authorization: "" },
    });
    expect(opened.status).toBe(303);
    expect(opened.headers.get("location")).toBe("/trajectories?q=x");
    expect(opened.headers.get("set-cookie")).toBe(
      `ors_playground_token_${port}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=604800`,
    );
    const bearer = { authorization: `Bearer ${token}` };
    expect((await fetch(`${app.base}/api/trajectories`, { headers: bearer })).status).toBe(200);
    expect((await fetch(`${app.base}/trajectories`, { headers: bearer })).status).toBe(200);
    const cookie = { authorization: "", cookie: `ors_playground_token_${port}=${token}` };
    expect((await fetch(`${app.base}/api/servers`, { headers: cookie })).status).toBe(200);
    const wrong = await fetch(`${app.base}/api/trajectories`, {
      headers: { authorization: "Bearer not-it" },
    });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { detail: string }).detail).toMatch(/not valid/);
    // The suite's own token (what Node's fetch sends here by default) is not this app's either.
    expect((await fetch(`${app.base}/api/trajectories`)).status).toBe(401);
  });

  test("the ORS endpoints keep their own rules: a training client needs no browser token", async () => {
    const none = { authorization: "" };
    expect(await (await fetch(`${app.base}/api/ors/list_environments`, { headers: none })).json()).toContain(
      "math",
    );
    expect(await (await fetch(`${app.base}/list_environments`, { headers: none })).json()).toContain("math");
    const created = await fetch(`${app.base}/api/ors/create_session`, { method: "POST", headers: none });
    expect(created.status).toBe(200);
    const { sid } = (await created.json()) as { sid: string };
    const create = await fetch(`${app.base}/create`, {
      method: "POST",
      headers: { ...none, "content-type": "application/json", "x-session-id": sid },
      body: JSON.stringify({ env_name: "math", split: "train", index: 0 }),
    });
    expect(create.status).toBe(200);
    expect(
      (await fetch(`${app.base}/delete`, { method: "POST", headers: { ...none, "x-session-id": sid } }))
        .status,
    ).toBe(200);
  });

  test("in Chromium: the printed URL lands on the app with a clean address bar", async ({ browser }) => {
    // A browser that has never seen this app (not the suite's storage state).
    const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
    const page = await context.newPage();
    const first = await page.goto(`${app.base}/`);
    expect(first?.status()).toBe(401);
    await expect(page.getByRole("heading", { name: "Access token needed" })).toBeVisible();
    await page.goto(app.openUrl);
    expect(page.url()).toBe(`${app.base}/`);
    await expect(
      page
        .getByRole("list", { name: "Environments of local" })
        .getByRole("link", { name: "math", exact: true }),
    ).toBeVisible();
    const cookie = (await context.cookies(app.base)).find((c) => c.name === `ors_playground_token_${port}`);
    expect(cookie).toMatchObject({ value: token, httpOnly: true, sameSite: "Strict" });
    // Pages opened afterwards carry it: no token in any address.
    expect((await page.goto(`${app.base}/trajectories`))?.status()).toBe(200);
    await expect(page).toHaveTitle(/Trajectories/);
    expect(page.url()).toBe(`${app.base}/trajectories`);
    await context.close();
  });
});

test.describe("PLAYGROUND_AUTH=none", () => {
  test("turns the token off and says so loudly at start", async () => {
    const app = await startApp(["--host", "127.0.0.1"], {
      PLAYGROUND_TOKEN: undefined,
      PLAYGROUND_AUTH: "none",
    });
    try {
      expect(app.openUrl).toBe(app.base);
      expect(app.out()).toMatch(
        /No access token \(PLAYGROUND_AUTH=none\): pages, APIs and the relay are open\./,
      );
      await expect
        .poll(() => app.err())
        .toMatch(
          /WARNING: PLAYGROUND_AUTH=none: the playground at http:\/\/127\.0\.0\.1:\d+ has NO ACCESS TOKEN/,
        );
      const port = Number(new URL(app.base).port);
      expect((await rawRequest(port, "GET", "/api/trajectories")).status).toBe(200);
      expect((await rawRequest(port, "GET", "/trajectories")).status).toBe(200);
      // Everything else still holds: a foreign Host, a cross-site write.
      expect((await rawRequest(port, "GET", "/api/trajectories", { host: "attacker.example" })).status).toBe(
        403,
      );
      expect(
        (
          await rawRequest(port, "POST", "/api/servers", {
            origin: "http://localhost:1",
            "content-type": "application/json",
          })
        ).status,
      ).toBe(403);
    } finally {
      await app.stop();
    }
  });

  test("beside a PLAYGROUND_TOKEN it refuses to start, saying which two", async () => {
    await expect(
      startApp([], { PLAYGROUND_TOKEN: "some-token-of-enough-length", PLAYGROUND_AUTH: "none" }),
    ).rejects.toThrow(
      /could not start the playground: PLAYGROUND_AUTH=none and PLAYGROUND_TOKEN are both set/,
    );
  });
});

test.describe("listening on a non-loopback address", () => {
  let app: StartedApp;
  let openUrl = "";
  let base = "";
  let token = "";
  let port = 0;

  test.beforeAll(async () => {
    // An address of this machine other than loopback; every interface when it has none.
    const external = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && !a.internal && a.family === "IPv4")?.address;
    app = await startApp(["--host", external ?? "0.0.0.0"], {
      PLAYGROUND_TOKEN: undefined,
      ORS_API_KEYS: "",
    });
    openUrl = app.openUrl;
    const u = new URL(openUrl);
    token = u.searchParams.get("token")!;
    base = u.origin;
    port = Number(u.port);
  });

  test.afterAll(async () => {
    await app.stop();
  });

  test("prints a ready-to-open URL with a generated token", () => {
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(openUrl).toBe(`${base}/?token=${token}`);
    expect(base).toBe(app.base);
    expect(base).not.toMatch(/127\.0\.0\.1/);
  });

  test("without the token: 401 for pages, APIs and the ORS host; /health stays open", async () => {
    const page = await fetch(`${base}/trajectories`);
    expect(page.status).toBe(401);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    expect(await page.text()).toMatch(/Access token needed/);
    for (const path of [
      "/api/trajectories",
      "/api/servers",
      "/api/servers/local/list_environments",
      "/api/ors/list_environments",
      "/list_environments",
    ]) {
      const r = await fetch(`${base}${path}`);
      expect(r.status, path).toBe(401);
      expect(((await r.json()) as { detail: string }).detail).toMatch(/access token/);
    }
    expect((await fetch(`${base}/api/ors/health`)).status).toBe(200);
    expect(
      (await fetch(`${base}/api/trajectories`, { headers: { authorization: "Bearer nope" } })).status,
    ).toBe(401);
  });

  test("scripts: Authorization: Bearer; ORS clients: the token as X-API-Key", async () => {
    const auth = { authorization: `Bearer ${token}` };
    expect((await fetch(`${base}/api/trajectories`, { headers: auth })).status).toBe(200);
    expect((await fetch(`${base}/api/servers/local/list_environments`, { headers: auth })).status).toBe(200);
    const created = await fetch(`${base}/create_session`, {
      method: "POST",
      headers: { "x-api-key": token },
    });
    expect(created.status).toBe(200);
    // The listen address is an allowed Host; other names are not, token or not.
    const address = new URL(base).hostname;
    expect((await rawRequest(port, "GET", "/api/servers", auth, address)).status).toBe(200);
    const foreign = await rawRequest(
      port,
      "GET",
      "/api/servers",
      { ...auth, host: "attacker.example" },
      address,
    );
    expect(foreign.status).toBe(403);
  });

  test("the printed URL in a browser: the token becomes an HttpOnly SameSite=Strict cookie, the app works", async ({
    browser,
  }) => {
    const context = await browser.newContext({ baseURL: base });
    const page = await context.newPage();
    await page.goto(openUrl);
    expect(page.url()).toBe(`${base}/`);
    const cookie = (await context.cookies(base)).find((c) => c.name === `ors_playground_token_${port}`);
    expect(cookie?.value).toBe(token);
    expect(cookie?.httpOnly).toBe(true);
    expect(cookie?.sameSite).toBe("Strict");
    // The page's own API calls carry the cookie: the built-in environments are listed.
    await expect(
      page
        .getByRole("list", { name: "Environments of local" })
        .getByRole("link", { name: "math", exact: true }),
    ).toBeVisible();
    await context.close();

    const stranger = await browser.newContext();
    const other = await stranger.newPage();
    const res = await other.goto(`${base}/trajectories`);
    expect(res?.status()).toBe(401);
    await expect(other.getByRole("heading", { name: "Access token needed" })).toBeVisible();
    await stranger.close();
  });
});
