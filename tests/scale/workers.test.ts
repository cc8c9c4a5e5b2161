// The host scaled out (`serve --workers 2`: real worker processes behind a real nginx on loopback),
// through nginx: whole episodes with the repo's client and the OpenReward-shaped client, SSE that
// streams (pings as they come), reconnection by task_id, a chunked 1 MB result, sessions spread over
// the workers, 429 + Retry-After and 413 from a worker passed on unchanged, a killed worker (its
// sessions: JSON 410, the others unaffected, restarted and serving), and a clean stop on Ctrl-C.
import { existsSync } from "node:fs";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrsClient, type OrsClient, OrsClientError } from "@/lib/ors/client";
import { processTree } from "../../scripts/bench-proc";
import { createOpenRewardClient } from "../fixtures/openreward-client/client";
import { callInNewSession } from "../support/calls";
import { nginxBinary } from "../support/nginx";
import { rawRequest } from "../support/raw-http";
import { type ScaledHost, startScaled, until } from "./helpers";

const nginx = await nginxBinary("serve --workers");

/** A session whose id names worker `index` (create_session is spread: ask until one lands there). */
async function sessionOn(ors: OrsClient, index: number): Promise<string> {
  for (let i = 0; i < 40; i++) {
    const { sid } = await ors.createSession();
    if (sid.startsWith(`w${index}-`)) return sid;
  }
  throw new Error(`no session landed on worker ${index} in 40 tries`);
}

async function json(res: Response): Promise<{ detail?: string } & Record<string, unknown>> {
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  return (await res.json()) as { detail?: string };
}

// Worker starts and restarts compile TypeScript: on a loaded machine they take a while.
describe("serve --workers 2 behind nginx", { timeout: 120_000 }, () => {
  let host: ScaledHost;
  let ors: OrsClient;

  beforeAll(async () => {
    host = await startScaled(nginx.path, 2, {
      env: {
        // Pings every 100 ms, so a short call shows several; few sessions, so the limit is reached.
        ORS_PING_INTERVAL_MS: "100",
        ORS_MAX_SESSIONS: "4",
        ORS_MAX_BODY_BYTES: "65536",
      },
    });
    ors = createOrsClient({ baseUrl: host.url, rateLimitRetries: 0, backoffBaseMs: 100 });
  });

  afterAll(async () => {
    await host?.proc.stop();
  });

  it("prints the base URL, a line per worker with its pid, and nginx's", async () => {
    const pids = host.workerPids();
    expect(pids).toHaveLength(2);
    expect(host.livePids().sort()).toEqual([...pids, host.nginxPid].sort());
    expect(host.proc.out()).toContain(`ORS base URL for clients: ${host.url}`);
    expect(host.proc.out()).toMatch(/worker 0: pid \d+ on http:\/\/127\.0\.0\.1:\d+, session ids w0-r0-…/);
    expect(await ors.health()).toEqual({ status: "ok" });
  });

  it("spreads new sessions over the workers; each session's requests reach its own", async () => {
    const sids = await Promise.all(Array.from({ length: 8 }, () => ors.createSession()));
    const byWorker = new Set(sids.map(({ sid }) => /^w(\d+)-r0-/.exec(sid)?.[1]));
    expect([...byWorker].sort()).toEqual(["0", "1"]);
    // The session lives on its worker only: every request of it reaches that one.
    const sid = sids.find(({ sid }) => sid.startsWith("w1-"))!.sid;
    await ors.create(sid, { env_name: "dice", split: "train", index: 0 });
    for (let i = 0; i < 6; i++)
      expect(await ors.callTool("dice", sid, { name: "echo", input: { text: `n${i}` } })).toMatchObject({
        ok: true,
      });
    await ors.delete(sid);
    // Deleted on its worker: 410 from the host itself, through nginx unchanged.
    const gone = await fetch(`${host.url}/ping`, { method: "POST", headers: { "x-session-id": sid } });
    expect(gone.status).toBe(410);
    expect((await json(gone)).detail).toMatch(/deleted/i);
  });

  it("plays a whole episode with the repo's client", async () => {
    expect(await ors.listEnvironments()).toContain("math");
    expect((await ors.tools("math")).tools.map((t) => t.name)).toEqual(["submit"]);
    const { task } = await ors.task("math", "train", 3);
    const { sid } = await ors.createSession();
    await ors.create(sid, { env_name: "math", split: "train", index: 3 });
    const prompt = await ors.prompt("math", sid);
    expect(prompt[0]).toMatchObject({ type: "text", text: task.question });
    expect(await ors.ping(sid)).toEqual({ status: "ok" });
    const out = await ors.callTool("math", sid, { name: "submit", input: { answer: String(task.answer) } });
    expect(out).toMatchObject({ ok: true, output: { reward: 1, finished: true } });
    await ors.delete(sid);
  });

  it("streams a call's SSE through nginx as it comes: pings while the tool runs, then the result", async () => {
    const { sid, out, events } = await callInNewSession(ors, "slow", {
      name: "wait",
      input: { seconds: 0.8 },
    });
    expect(out).toMatchObject({ ok: true, output: { metadata: { seconds: 0.8 } } });
    const pings = events.filter((e) => e.type === "ping");
    const end = events.find((e) => e.type === "end")!;
    expect(events[0]!.type).toBe("task_id");
    expect(pings.length).toBeGreaterThanOrEqual(4);
    // Unbuffered: the first ping arrived long before the result, not with it.
    expect(end.at - pings[0]!.at).toBeGreaterThan(400);
    await ors.delete(sid);
  });

  it("gives a dropped call's result again to a re-post with its task_id", async () => {
    const { sid } = await ors.createSession();
    await ors.create(sid, { env_name: "slow", split: "train", index: 0 });
    const ctrl = new AbortController();
    const res = await fetch(`${host.url}/slow/call`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", "x-session-id": sid },
      body: JSON.stringify({ name: "wait", input: { seconds: 0.6 } }),
      signal: ctrl.signal,
    });
    const reader = res.body!.getReader();
    let text = "";
    while (!/event: task_id\ndata: (\S+)\n\n/.test(text))
      text += new TextDecoder().decode((await reader.read()).value);
    const taskId = /event: task_id\ndata: (\S+)\n\n/.exec(text)![1]!;
    ctrl.abort();
    const again = await ors.callTool("slow", sid, { name: "wait", input: { seconds: 0.6 }, task_id: taskId });
    expect(again).toMatchObject({ ok: true, output: { metadata: { seconds: 0.6 } } });
    await ors.delete(sid);
  });

  it("delivers a 1 MB result in chunks of 4096 characters at most", async () => {
    const { sid, out, events } = await callInNewSession(ors, "bigoutput", {
      name: "dump",
      input: { size: 1_048_576 },
    });
    if (!out.ok) throw new Error(out.error);
    const text = out.output.blocks.map((b) => ("text" in b ? b.text : "")).join("");
    expect(text.length).toBe(1_048_576);
    const chunks = events.filter((e) => e.type === "chunk");
    // Pieces of at most 4096 characters (a cut moves off whitespace, so some are shorter).
    expect(chunks.length).toBeGreaterThan(250);
    expect(Math.max(...chunks.map((c) => c.size!))).toBeLessThanOrEqual(4096);
    await ors.delete(sid);
  });

  it("plays episodes with the OpenReward-shaped client (bare paths, X-Deployment, pings)", async () => {
    const client = createOpenRewardClient({ baseUrl: host.url, waitScale: 0.01, pingMs: 50 });
    const math = client.environments.get("math");
    const task = await math.getTask("test", 2);
    expect(task.environmentName).toBe("math");
    const s = await math.session({ task }).open();
    try {
      expect((await s.getPrompt())[0]!.text).toBe(task.taskSpec.question);
      await new Promise((r) => setTimeout(r, 150)); // its /ping loop reaches the session's worker
      expect(await s.callTool("submit", { answer: task.taskSpec.answer as string })).toMatchObject({
        reward: 1,
        finished: true,
      });
    } finally {
      await s.close();
    }
    const big = await client.environments.get("bigoutput").session({ split: "train", index: 0 }).open();
    try {
      expect((await big.callTool("dump")).blocks[0]!.text!.length).toBeGreaterThan(100_000);
    } finally {
      await big.close();
    }
  });

  it("passes a worker's 429 + Retry-After at its session limit, and its 413, unchanged", async () => {
    const held: string[] = [];
    let refused: Response | null = null;
    // 4 sessions per worker: the ninth /create at the latest finds its worker full.
    for (let i = 0; i < 12 && !refused; i++) {
      const { sid } = await ors.createSession();
      const res = await fetch(`${host.url}/create`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-session-id": sid },
        body: JSON.stringify({ env_name: "math", split: "train", index: 0 }),
      });
      if (res.status === 429) refused = res;
      else {
        expect(res.status).toBe(200);
        held.push(sid);
      }
    }
    expect(refused).not.toBeNull();
    expect(refused!.headers.get("retry-after")).toBe("2");
    expect((await json(refused!)).detail).toMatch(/^Too many sessions: this server holds at most 4 at once/);
    await Promise.all(held.map((sid) => ors.delete(sid)));

    const big = await fetch(`${host.url}/create`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-session-id": "w0-r0-x" },
      body: JSON.stringify({ env_name: "math", split: "train", index: 0, pad: "x".repeat(70_000) }),
    });
    expect(big.status).toBe(413);
    expect((await json(big)).detail).toBe(
      "Request body too large: the limit is 65536 bytes (ORS_MAX_BODY_BYTES)",
    );
  });

  it("answers what nginx refuses itself as JSON too: a malformed request line, HTTP/2.0, a bad encoding", async () => {
    const head = (line: string, more = "") => `${line}\r\nHost: 127.0.0.1\r\n${more}\r\n`;
    const cases: [string, number][] = [
      [head("GET / FOO/1.1"), 400],
      [head("G@T /health HTTP/1.1"), 400],
      [head("GET /%zz HTTP/1.1"), 400],
      [head("GET /../../etc HTTP/1.1"), 400],
      [head("GET /health HTTP/1.1 extra"), 400],
      [head("GET /health HTTP/2.0"), 400],
      [head("GET /health HTTP/9.9"), 400],
      [head("POST /create HTTP/1.1", "Transfer-Encoding: gzip\r\n"), 400],
      [head("GET /health HTTP/1.1", `X-Big: ${"a".repeat(40_000)}\r\n`), 400],
      [head(`GET /${"a".repeat(40_000)} HTTP/1.1`), 414],
    ];
    for (const [raw, status] of cases) {
      const a = await rawRequest(host.url, raw);
      expect({ line: raw.slice(0, 40), status: a.status, type: a.headers["content-type"] }).toEqual({
        line: raw.slice(0, 40),
        status,
        type: "application/json",
      });
      expect(JSON.parse(a.body).detail).toEqual(expect.any(String));
    }
  });

  it("a killed worker loses only its own sessions (JSON 410, no hang), and is restarted and serving", async () => {
    const [w0, w1] = [await sessionOn(ors, 0), await sessionOn(ors, 1)];
    await ors.create(w0, { env_name: "dice", split: "train", index: 0 });
    await ors.create(w1, { env_name: "slow", split: "train", index: 0 });
    const oldPid = host.workerPids()[1]!;
    // A call running on worker 1 when it dies ends with a clear error, not a hang.
    const running = ors
      .callTool("slow", w1, { name: "wait", input: { seconds: 60 } }, { maxRetries: 2 })
      .catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 300));
    const killedAt = Date.now();
    process.kill(oldPid, "SIGKILL");

    const failure = await running;
    expect(Date.now() - killedAt).toBeLessThan(10_000);
    expect(failure).toBeInstanceOf(OrsClientError);
    expect(failure).toMatchObject({ status: 410, detail: expect.stringMatching(/^This session is lost/) });

    const lost = await fetch(`${host.url}/slow/prompt`, { headers: { "x-session-id": w1 } });
    expect(lost.status).toBe(410);
    expect((await json(lost)).detail).toMatch(/This session is lost: .*worker 1.* start a new session/);
    // The other worker's session goes on.
    expect(await ors.callTool("dice", w0, { name: "echo", input: { text: "still here" } })).toMatchObject({
      ok: true,
    });

    expect(await until(() => (host.workerPids()[1] ?? oldPid) !== oldPid, 60_000)).toBe(true);
    expect(host.proc.err()).toMatch(/worker 1 \(pid \d+\) stopped \(killed by SIGKILL\)/);
    expect(host.proc.out()).toMatch(/worker 1: pid \d+ on .*, session ids w1-r1-… \(restart 1\)/);
    // Restarted under the same route: its old sessions still get 410 (from the new worker), and new
    // sessions land on it and play.
    const after = await fetch(`${host.url}/slow/prompt`, { headers: { "x-session-id": w1 } });
    expect(after.status).toBe(410);
    expect((await json(after)).detail).toMatch(/worker 1 stopped and was restarted/);
    const fresh = await sessionOn(ors, 1);
    expect(fresh).toMatch(/^w1-r1-/);
    await ors.create(fresh, { env_name: "dice", split: "train", index: 0 });
    expect(await ors.callTool("dice", fresh, { name: "echo", input: { text: "new" } })).toMatchObject({
      ok: true,
    });
    await ors.delete(fresh);
    await ors.delete(w0);
  });

  it("restarts a worker whose port was taken meanwhile on another, and nginx follows it there", async () => {
    // nginx's worker processes (its master's children): a reload replaces them.
    const nginxWorkers = () => processTree(host.nginxPid).filter((p) => p !== host.nginxPid);
    const before = nginxWorkers();
    const oldPid = host.workerPids()[0]!;
    const oldPort = Number(/worker 0: pid \d+ on http:\/\/127\.0\.0\.1:(\d+)/.exec(host.proc.out())![1]);
    process.kill(oldPid, "SIGKILL");
    // Someone else takes the port before the restart (0.5 s later) can.
    const squatter = net.createServer((s) => s.destroy());
    expect(
      await until(
        () =>
          new Promise<boolean>((resolve) => {
            squatter.once("error", () => resolve(false));
            squatter.listen(oldPort, "127.0.0.1", () => resolve(true));
          }),
        2_000,
      ),
    ).toBe(true);
    try {
      expect(await until(() => /retrying worker 0 in/.test(host.proc.err()), 30_000)).toBe(true);
      expect(host.proc.err()).toMatch(/worker 0 exited while starting \(exit code 1\):\n.*could not listen/);
      // Gone again: nginx's old configuration now finds nobody there (refused: the next worker is
      // tried); only the reload can send worker 0's sessions to where it listens now.
      squatter.close();
      expect(await until(() => (host.workerPids()[0] ?? oldPid) !== oldPid, 60_000)).toBe(true);
      const port = Number(
        [...host.proc.out().matchAll(/worker 0: pid \d+ on http:\/\/127\.0\.0\.1:(\d+)/g)].at(-1)![1],
      );
      expect(port).not.toBe(oldPort);
      // nginx was told: once its reload is done (its old worker process gone; until then requests
      // on connections opened before may still meet the old address), worker 0's new sessions reach
      // it on its new port.
      expect(
        await until(() => {
          const now = nginxWorkers();
          return now.length === 1 && !before.includes(now[0]!);
        }, 15_000),
      ).toBe(true);
      let sid = "";
      await until(async () => {
        sid = (await ors.createSession()).sid;
        return sid.startsWith("w0-");
      }, 10_000);
      expect(sid).toMatch(/^w0-r2-/);
      await ors.create(sid, { env_name: "dice", split: "train", index: 0 });
      expect(await ors.callTool("dice", sid, { name: "echo", input: { text: "moved" } })).toMatchObject({
        ok: true,
      });
      await ors.delete(sid);
    } finally {
      squatter.close();
    }
  });

  it("stops nginx and every worker on Ctrl-C, removing its run folder", async () => {
    const pids = host.livePids();
    expect(pids.length).toBe(3);
    const exited = new Promise<number | null>((r) => host.proc.child.once("exit", (code) => r(code)));
    process.kill(host.proc.child.pid!, "SIGINT");
    expect(await exited).toBe(0);
    expect(host.livePids()).toEqual([]);
    expect(existsSync(host.runDir)).toBe(false);
    await expect(fetch(`${host.url}/health`)).rejects.toThrow();
  });
});
