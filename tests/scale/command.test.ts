// `serve --workers` refusing to start, in process and without starting anything: no nginx (exit 2,
// saying how to install it), usage mistakes (exit 2), a port in use (exit 1); how nginx is found; the
// worker's identity and its answer for the sessions of its earlier life (410).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import net from "node:net";
import { describe, expect, it } from "vitest";
import type { CommandIo } from "@/lib/cli/io";
import { serveCommand } from "@/lib/cli/serve-command";
import { findNginx } from "@/lib/scale/nginx";
import { answerLostSessions, workerIdentityFromEnv } from "@/lib/scale/worker";

async function serve(argv: string[], env: Record<string, string | undefined> = {}) {
  let out = "";
  let err = "";
  const io: CommandIo = {
    stdout: (s) => {
      out += s;
    },
    stderr: (s) => {
      err += s;
    },
    env: { PATH: process.env.PATH, ...env },
    signal: AbortSignal.abort(),
  };
  const code = await serveCommand(argv, io);
  return { code, out, err };
}

describe("serve --workers: refusals", () => {
  it("without nginx: says so and how to install it, exit code 2", async () => {
    const r = await serve(["--workers", "2", "--nginx", "/nonexistent/nginx"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("--nginx /nonexistent/nginx: not an executable file.");
    expect(r.err).toContain("nginx was not found");
    expect(r.err).toContain("sudo apt-get install -y nginx");
    expect(r.out).toBe("");
  });

  it("finds nginx on PATH or in the sbin folders, or nowhere", () => {
    expect(findNginx(undefined, { pathVar: "", dirs: [] })).toBeNull();
    expect(findNginx("/nonexistent/nginx", { pathVar: "" })).toBeNull();
    expect(findNginx(undefined, { pathVar: "/nonexistent", dirs: ["/bin"] })).toBeNull();
  });

  it.each([
    [["--workers", "0"], /--workers must be a whole number from 1 to 64, got "0"/],
    [["--workers", "two"], /--workers must be a whole number from 1 to 64, got "two"/],
    [["--workers", "65"], /--workers must be a whole number from 1 to 64/],
    [["--nginx", "/usr/sbin/nginx"], /--nginx goes with --workers/],
  ])("usage mistakes: %j, exit code 2", async (argv, message) => {
    const r = await serve(argv);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err).toContain("usage: serve");
  });

  it("a port in use: exit code 1 before anything starts", async () => {
    const busy = net.createServer();
    await new Promise<void>((r) => busy.listen(0, "127.0.0.1", r));
    const port = (busy.address() as net.AddressInfo).port;
    try {
      // Any executable stands in for nginx: the port is checked first.
      const r = await serve(["--workers", "1", "--port", String(port), "--nginx", process.execPath]);
      expect(r.code).toBe(1);
      expect(r.err).toBe(`serve: could not listen on 127.0.0.1:${port}: the port is in use\n`);
    } finally {
      busy.close();
    }
  });

  it("a bad ORS_* limit: exit code 1, naming it", async () => {
    const r = await serve(["--workers", "1", "--nginx", process.execPath], { ORS_MAX_SESSIONS: "lots" });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/ORS_MAX_SESSIONS must be a non-negative integer/);
  });
});

describe("a worker's identity and its lost sessions", () => {
  it("reads the identity the supervisor gives it, and refuses one it did not", () => {
    expect(workerIdentityFromEnv({})).toBeNull();
    expect(
      workerIdentityFromEnv({
        ORS_SCALE_WORKER: '{"index":1,"restart":2}',
        ORS_SESSION_ID_PREFIX: "t.a-w1-r2-",
      }),
    ).toEqual({ index: 1, restart: 2, routePrefix: "t.a-w1-", sessionPrefix: "t.a-w1-r2-" });
    expect(() =>
      workerIdentityFromEnv({ ORS_SCALE_WORKER: '{"index":1,"restart":2}', ORS_SESSION_ID_PREFIX: "w1-r3-" }),
    ).toThrow(/is not this worker's/);
    expect(() => workerIdentityFromEnv({ ORS_SCALE_WORKER: "yes" })).toThrow(/set by serve --workers/);
  });

  it("answers 410 for its sessions from before a restart, and passes everything else on", async () => {
    const worker = workerIdentityFromEnv({
      ORS_SCALE_WORKER: '{"index":1,"restart":2}',
      ORS_SESSION_ID_PREFIX: "w1-r2-",
    })!;
    const server = createServer(
      answerLostSessions(worker, (_req: IncomingMessage, res: ServerResponse) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"status":"ok"}');
      }),
    );
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/ping`;
    const ping = (sid?: string) =>
      fetch(url, { method: "POST", headers: sid ? { "x-session-id": sid } : {} });
    try {
      const lost = await ping("w1-r1-abc");
      expect(lost.status).toBe(410);
      expect(((await lost.json()) as { detail: string }).detail).toMatch(
        /^This session is lost: ORS host worker 1 stopped and was restarted since it was created/,
      );
      for (const sid of [undefined, "w1-r2-abc", "w10-r0-abc", "own-id"])
        expect((await ping(sid)).status).toBe(200);
    } finally {
      server.close();
    }
  });
});
