// Session management (ors-http-api.txt "Session Management", ors-sessions-episodes.txt): create in
// both forms, secrets, asynchronous setup and its failure, ping, delete → 410, idle expiry, maximum
// duration, the session limit, and isolation between concurrent sessions.
import { afterEach, describe, expect, it } from "vitest";
import { EnvironmentIndex } from "@/lib/ors/host/environments";
import { resolveHostOptions } from "@/lib/ors/host/options";
import { SessionTable } from "@/lib/ors/host/sessions";
import { RunRegistry } from "@/lib/ors/host/tool-runs";
import { OrsError } from "@/lib/ors/protocol";
import { CORRECT, closeHandlers, controls, makeHandler, qa, tasks } from "./helpers";
import { ev, expectError, framesOf, jsonOf, newEpisode, resultOf, send, until } from "./wire";

afterEach(closeHandlers);

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64");

describe("create_session", () => {
  it("answers JSON {sid} by default and SSE task_id + empty end when the client accepts SSE", async () => {
    const h = makeHandler();
    const a = (await jsonOf(await send(h, "/create_session", { method: "POST" }))) as { sid: string };
    expect(a.sid).toMatch(/^[0-9a-f-]{36}$/);
    const res = await send(h, "/create_session", {
      method: "POST",
      headers: { accept: "text/event-stream" },
    });
    const frames = await framesOf(res);
    expect(frames).toHaveLength(2);
    expect(frames[0]).toMatchObject({ kind: "event", event: "task_id" });
    expect(frames[1]).toEqual(ev("end", ""));
    expect((frames[0] as { data: string }).data).not.toBe(a.sid);
  });
});

describe("create", () => {
  it("runs a whole episode from a task_spec", async () => {
    const h = makeHandler();
    const sid = await newEpisode(h, {
      env_name: "qa",
      task_spec: { question: "2+2?", answer: "4" },
      secrets: {},
    });
    expect(await jsonOf(await send(h, "/qa/prompt", { sid }))).toEqual([
      { text: "2+2?", detail: null, type: "text" },
    ]);
    const frames = await framesOf(
      await send(h, "/qa/call", { sid, body: { name: "submit", input: { answer: "4" } } }),
    );
    expect(resultOf(frames)).toEqual(CORRECT);
    expect(await jsonOf(await send(h, "/delete", { sid, method: "POST" }))).toEqual({ sid });
    expect(controls.teardowns).toEqual([sid]);
  });

  it("resolves split + index, and defaults env_name to the first environment", async () => {
    const h = makeHandler();
    const sid = await newEpisode(h, { split: "train", index: 7 });
    expect(await jsonOf(await send(h, "/qa/prompt", { sid }))).toEqual([
      { text: tasks.train![7]!.question, detail: null, type: "text" },
    ]);
    const sid2 = await newEpisode(h, { env_name: "indexed", split: "huge", index: 4242 });
    expect(await jsonOf(await send(h, "/indexed/prompt", { sid: sid2 }))).toEqual([
      { text: "task 4242", detail: null, type: "text" },
    ]);
  });

  it("without env_name, binds the session to the environment of its first /{env}/ request (reference client)", async () => {
    const h = makeHandler();
    // The reference client sends only split + index, then uses /{env}/prompt and /{env}/call.
    const sid = await newEpisode(h, { split: "huge", index: 77 });
    expect(await jsonOf(await send(h, "/indexed/prompt", { sid }))).toEqual([
      { text: "task 77", detail: null, type: "text" },
    ]);
    const frames = await framesOf(await send(h, "/indexed/call", { sid, body: { name: "hint", input: {} } }));
    expect(resultOf(frames)).toMatchObject({ ok: true, output: { blocks: [{ text: "hint 77" }] } });
    await expectError(
      send(h, "/qa/call", { sid, body: { name: "submit", input: { answer: "1" } } }),
      404,
      /runs environment "indexed", not "qa"/,
    );
    // A task no environment has is refused at once; one the first-named environment lacks, at binding.
    await expectError(send(h, "/create", { sid: "u1", body: { split: "nope", index: 0 } }), 400, /env_name/);
    const sid2 = await newEpisode(h, { split: "train", index: 5 });
    await expectError(
      send(h, "/slowsetup/prompt", { sid: sid2 }),
      400,
      /Invalid index 5: split "train" has 1 tasks/,
    );
    await expectError(send(h, "/indexed/prompt", { sid: sid2 }), 400, /Invalid split "train"/);
    expect(await jsonOf(await send(h, "/qa/prompt", { sid: sid2 }))).toEqual([
      { text: tasks.train![5]!.question, detail: null, type: "text" },
    ]);
    expect(await jsonOf(await send(h, "/ping", { sid: sid2, method: "POST" }))).toEqual({ status: "ok" });
    expect(await jsonOf(await send(h, "/delete", { sid: sid2, method: "POST" }))).toEqual({ sid: sid2 });
  });

  it("answers 400 for task_spec XOR split+index violations, bad split/index, missing header, reuse", async () => {
    const h = makeHandler();
    const spec = { question: "q", answer: "a" };
    await expectError(
      send(h, "/create", { body: { task_spec: spec } }),
      400,
      /X-Session-ID header is required/,
    );
    await expectError(send(h, "/create", { sid: "s1", body: {} }), 400, /task_spec/);
    await expectError(
      send(h, "/create", { sid: "s1", body: { task_spec: spec, split: "train", index: 0 } }),
      400,
      /task_spec: provide either/,
    );
    await expectError(send(h, "/create", { sid: "s1", body: { split: "train" } }), 400, /^index: /);
    await expectError(send(h, "/create", { sid: "s1", body: { index: 0 } }), 400, /^split: /);
    await expectError(
      send(h, "/create", { sid: "s1", body: { env_name: "qa", split: "dev", index: 0 } }),
      400,
      /Invalid split/,
    );
    await expectError(
      send(h, "/create", { sid: "s1", body: { env_name: "qa", split: "train", index: -1 } }),
      400,
      /index: must be/,
    );
    await expectError(
      send(h, "/create", { sid: "s1", body: { env_name: "qa", split: "train", index: 99 } }),
      400,
      /Invalid index 99/,
    );
    await expectError(send(h, "/create", { sid: "s1", body: { task_spec: "x" } }), 400, /^task_spec: /);
    await expectError(
      send(h, "/create", { sid: "s1", body: { task_spec: spec, secrets: { k: 1 } } }),
      400,
      /^secrets\.k: /,
    );
    await expectError(
      send(h, "/create", { sid: "s1", body: { env_name: "nope", task_spec: spec } }),
      404,
      /Unknown environment "nope"/,
    );
    expect((await send(h, "/create", { sid: "s1", body: { task_spec: spec } })).status).toBe(200);
    await expectError(
      send(h, "/create", { sid: "s1", body: { task_spec: spec } }),
      400,
      /Session already exists/,
    );
    await send(h, "/delete", { sid: "s1", method: "POST" });
    await expectError(send(h, "/create", { sid: "s1", body: { task_spec: spec } }), 400, /already used/);
    await expectError(
      send(h, "/create", { sid: "x".repeat(300), body: { task_spec: spec } }),
      400,
      /longer than/,
    );
  });

  it("passes secrets from the body and from the X-Secrets header (body wins)", async () => {
    const h = makeHandler();
    const sid = await newEpisode(
      h,
      {
        env_name: "qa",
        task_spec: { question: "q", answer: "a" },
        secrets: { B: "body", SAME: "from-body" },
      },
      { "X-Secrets": b64({ H: { value: "header" }, SAME: { value: "from-header" } }) },
    );
    const frames = await framesOf(await send(h, "/qa/call", { sid, body: { name: "peek", input: {} } }));
    const out = resultOf(frames) as { output: { blocks: { text: string }[] } };
    expect(JSON.parse(out.output.blocks[0]!.text)).toEqual({ H: "header", B: "body", SAME: "from-body" });
    await expectError(
      send(h, "/create", { sid: "bad", body: { task_spec: {} }, headers: { "X-Secrets": "%%%" } }),
      400,
      /X-Secrets header/,
    );
    await expectError(
      send(h, "/create", { sid: "bad", body: { task_spec: {} }, headers: { "X-Secrets": b64({ K: 3 }) } }),
      400,
      /X-Secrets header: K/,
    );
  });
});

describe("setup", () => {
  it("runs asynchronously: /create answers at once, later requests wait for it", async () => {
    const h = makeHandler();
    const sid = await newEpisode(h, { env_name: "slowsetup", split: "train", index: 0 });
    expect(h.host.stats().settingUp).toBe(1);
    expect(await jsonOf(await send(h, "/ping", { sid, method: "POST" }))).toEqual({ status: "ok" });
    let answered = false;
    const prompt = send(h, "/slowsetup/prompt", { sid }).then((r) => {
      answered = true;
      return r;
    });
    const tools = send(h, "/slowsetup/task_tools", { sid });
    await new Promise((r) => setTimeout(r, 30));
    expect(answered).toBe(false);
    controls.setupGate.resolve();
    expect(await jsonOf(await prompt)).toEqual([{ text: "ready", detail: null, type: "text" }]);
    expect(((await jsonOf(await tools)) as { tools: unknown[] }).tools).toHaveLength(1);
  });

  it("reports a failed setup to later requests with 500 and the reason", async () => {
    const h = makeHandler();
    const sid = await newEpisode(h, { env_name: "broken", split: "train", index: 0 });
    const reason = /Setup of environment broken failed: database unreachable/;
    await expectError(send(h, "/broken/prompt", { sid }), 500, reason);
    await expectError(send(h, "/broken/task_tools", { sid }), 500, reason);
    await expectError(send(h, "/broken/call", { sid, body: { name: "noop", input: {} } }), 500, reason);
    await expectError(send(h, "/ping", { sid, method: "POST" }), 500, reason);
    // On another environment's path: that environment is not the session's, a 404 (not the setup's 500).
    const mismatch = /^Session "[^"]+" runs environment "broken", not "qa"$/;
    await expectError(send(h, "/qa/prompt", { sid }), 404, mismatch);
    await expectError(send(h, "/qa/task_tools", { sid }), 404, mismatch);
    expect((await send(h, "/qa/prompt", { sid, method: "HEAD" })).status).toBe(404);
    expect(await jsonOf(await send(h, "/delete", { sid, method: "POST" }))).toEqual({ sid });
  });

  it("releases waiters with 410 when the session is deleted during setup, and tears down after", async () => {
    const h = makeHandler();
    const sid = await newEpisode(h, { env_name: "slowsetup", split: "train", index: 0 });
    const prompt = send(h, "/slowsetup/prompt", { sid });
    expect(await jsonOf(await send(h, "/delete", { sid, method: "POST" }))).toEqual({ sid });
    await expectError(prompt, 410, /was deleted/);
    expect(controls.teardowns).toEqual([]);
    controls.setupGate.resolve();
    await until(() => controls.teardowns.length === 1);
    expect(controls.teardowns).toEqual([sid]);
  });
});

describe("ping, delete, delete_session", () => {
  it("pings a live session; 400 without header; 404 for unknown", async () => {
    const h = makeHandler();
    const sid = await newEpisode(h, { env_name: "qa", split: "train", index: 0 });
    expect(await jsonOf(await send(h, "/ping", { sid, method: "POST" }))).toEqual({ status: "ok" });
    await expectError(send(h, "/ping", { method: "POST" }), 400, /X-Session-ID header is required/);
    await expectError(send(h, "/ping", { sid: "nope", method: "POST" }), 404, /Session not found: "nope"/);
  });

  it("answers 410 Gone after delete for prompt, task_tools, call (and ping, delete); 404 for never-seen", async () => {
    const h = makeHandler();
    const sid = await newEpisode(h, { env_name: "qa", split: "train", index: 0 });
    await send(h, "/delete", { sid, method: "POST" });
    await expectError(send(h, "/qa/prompt", { sid }), 410, /was deleted/);
    await expectError(send(h, "/qa/task_tools", { sid }), 410, /was deleted/);
    await expectError(
      send(h, "/qa/call", { sid, body: { name: "submit", input: { answer: "1" } } }),
      410,
      /deleted/,
    );
    await expectError(send(h, "/ping", { sid, method: "POST" }), 410, /deleted/);
    await expectError(send(h, "/delete", { sid, method: "POST" }), 410, /deleted/);
    await expectError(send(h, "/delete", { sid: "never-seen", method: "POST" }), 404, /Session not found/);
    await expectError(send(h, "/delete", { method: "POST" }), 400, /X-Session-ID/);
    await expectError(send(h, "/qa/prompt", { sid: "never-seen" }), 404, /Session not found/);
    await expectError(send(h, "/qa/prompt"), 400, /X-Session-ID header is required/);
  });

  it("remembers the last 100,000 ended ids for an hour (410), forgetting the oldest first (404)", async () => {
    const envs = EnvironmentIndex.of([qa]);
    const table = new SessionTable(
      resolveHostOptions({ log: () => {} }),
      new RunRegistry(60_000, 1_000_000),
      () => envs,
    );
    const statusOf = (sid: string) => {
      try {
        table.require(sid);
        return 200;
      } catch (e) {
        return e instanceof OrsError ? e.status : 0;
      }
    };
    const hosted = envs.require("qa");
    const body = { task_spec: { question: "q", answer: "a" } };
    for (let i = 0; i <= 100_000; i++) {
      await table.create({ sid: `s${i}`, body, hosted, secrets: {}, bytes: 0 });
      await table.delete(`s${i}`);
    }
    expect(table.tombstoneCount).toBe(100_000);
    expect([statusOf("s0"), statusOf("s1"), statusOf("s100000")]).toEqual([404, 410, 410]);
    table.sweep(performance.now() + 59 * 60_000);
    expect(table.tombstoneCount).toBe(100_000);
    table.sweep(performance.now() + 61 * 60_000);
    expect(table.tombstoneCount).toBe(0);
    expect(statusOf("s100000")).toBe(404);
  });

  it("delete_session always answers {sid} and tears down a session still held", async () => {
    const h = makeHandler();
    expect(await jsonOf(await send(h, "/delete_session", { sid: "whatever", method: "POST" }))).toEqual({
      sid: "whatever",
    });
    const sid = await newEpisode(h, { env_name: "qa", split: "train", index: 0 });
    expect(await jsonOf(await send(h, "/delete_session", { sid, method: "POST" }))).toEqual({ sid });
    expect(controls.teardowns).toEqual([sid]);
    expect(h.host.sessionCount).toBe(0);
  });
});

describe("lifecycle limits", () => {
  it("tears down idle sessions (404 afterwards); any request with the id resets the timer", async () => {
    const h = makeHandler({ idleTimeoutMs: 150, sweepIntervalMs: 10 });
    const idle = await newEpisode(h, { env_name: "qa", split: "train", index: 0 });
    const kept = await newEpisode(h, { env_name: "qa", split: "train", index: 1 });
    const start = Date.now();
    while (Date.now() - start < 300) {
      expect((await send(h, "/ping", { sid: kept, method: "POST" })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 40));
    }
    expect(controls.teardowns).toEqual([idle]);
    await expectError(send(h, "/qa/prompt", { sid: idle }), 404, /expired: no request for 150 ms/);
    expect((await send(h, "/qa/prompt", { sid: kept })).status).toBe(200);
  });

  it("does not expire a session while a call runs", async () => {
    const h = makeHandler({ idleTimeoutMs: 80, sweepIntervalMs: 10, pingIntervalMs: 1000 });
    const sid = await newEpisode(h, { env_name: "qa", split: "train", index: 0 });
    const call = send(h, "/qa/call", { sid, body: { name: "held", input: {} } });
    await new Promise((r) => setTimeout(r, 250));
    expect(h.host.sessionCount).toBe(1);
    controls.toolGate.resolve();
    expect(resultOf(await framesOf(await call))).toMatchObject({ ok: true });
    await until(() => h.host.sessionCount === 0);
  });

  it("tears down a session at the maximum duration however active, ending a running call", async () => {
    const h = makeHandler({ maxSessionMs: 200, sweepIntervalMs: 10, pingIntervalMs: 10_000 });
    const sid = await newEpisode(h, { env_name: "qa", split: "train", index: 0 });
    const frames = await framesOf(await send(h, "/qa/call", { sid, body: { name: "held", input: {} } }));
    expect(frames).toHaveLength(2);
    expect(frames[1]).toEqual(
      ev("error", `Session "${sid}" expired: it reached the maximum session duration of 200 ms`),
    );
    expect(controls.aborted).toEqual(["held"]);
    await expectError(send(h, "/ping", { sid, method: "POST" }), 404, /maximum session duration/);
  });

  it("answers 429 with Retry-After beyond the session limit without evicting anyone", async () => {
    const h = makeHandler({ maxSessions: 2, retryAfterS: 3 });
    const a = await newEpisode(h, { env_name: "qa", split: "train", index: 0 });
    await newEpisode(h, { env_name: "qa", split: "train", index: 1 });
    const full = await send(h, "/create", { sid: "third", body: { split: "train", index: 2 } });
    expect(full.headers.get("retry-after")).toBe("3");
    await expectError(
      full,
      429,
      /Too many sessions: this server holds at most 2 at once \(ORS_MAX_SESSIONS\)\. Delete finished sessions with \/delete, or retry after 3 s$/,
    );
    expect(h.host.sessionCount).toBe(2);
    await send(h, "/delete", { sid: a, method: "POST" });
    expect((await send(h, "/create", { sid: "third", body: { split: "train", index: 2 } })).status).toBe(200);
  });
});

describe("isolation", () => {
  it("keeps per-session state apart across concurrent sessions", async () => {
    const h = makeHandler();
    const sids = await Promise.all(
      Array.from({ length: 8 }, (_, i) => newEpisode(h, { env_name: "qa", split: "train", index: i })),
    );
    const counts = async (sid: string, n: number) => {
      const out: string[] = [];
      for (let i = 0; i < n; i++) {
        const r = resultOf(
          await framesOf(await send(h, "/qa/call", { sid, body: { name: "counter", input: {} } })),
        );
        out.push((r as { output: { blocks: { text: string }[] } }).output.blocks[0]!.text);
      }
      return out;
    };
    const results = await Promise.all(sids.map((sid, i) => counts(sid, i + 1)));
    results.forEach((r, i) => {
      expect(r).toEqual(Array.from({ length: i + 1 }, (_, k) => `count ${k + 1}`));
    });
    const prompts = await Promise.all(sids.map(async (sid) => jsonOf(await send(h, "/qa/prompt", { sid }))));
    prompts.forEach((p, i) => {
      expect(p).toEqual([{ text: tasks.train![i]!.question, detail: null, type: "text" }]);
    });
  });

  it("serves task-specific tools only in task_tools of the session", async () => {
    const h = makeHandler();
    const sid = await newEpisode(h, { env_name: "indexed", split: "huge", index: 5 });
    const all = (await jsonOf(await send(h, "/indexed/task_tools", { sid }))) as {
      tools: { name: string; description: string }[];
    };
    expect(all.tools.map((t) => `${t.name}: ${t.description}`)).toEqual([
      "noop: noop",
      "hint: Hint for task 5",
    ]);
    const frames = await framesOf(await send(h, "/indexed/call", { sid, body: { name: "hint", input: {} } }));
    expect(resultOf(frames)).toMatchObject({ ok: true, output: { blocks: [{ text: "hint 5" }] } });
  });
});
