// Bare paths (`/splits`, `/prompt`, `/call`: an environment endpoint without its environment) and
// the X-Deployment header, as the OpenReward client sends them; `env_name` in /task and /task_range;
// platform-only /create fields; the ping interval's limit. Spec: ors-http-api.txt /create ("If the
// server hosts a single environment, requests to unrecognized paths are redirected to it").
import { afterEach, describe, expect, it } from "vitest";
import { createOrsHandler, hostOptionsFromEnv } from "@/lib/ors/host";
import { closeHandlers, makeHandler, qa, tasks } from "./helpers";
import { ev, expectError, framesOf, jsonOf, newEpisode, resultOf, send } from "./wire";

afterEach(closeHandlers);

const deploy = (name: string) => ({ "x-deployment": name });

describe("a host with one environment", () => {
  it("serves bare paths directly (no redirect), whatever X-Deployment says", async () => {
    const h = createOrsHandler([qa], { log: () => {} });
    try {
      expect(await jsonOf(await send(h, "/splits"))).toEqual([
        { name: "train", type: "train" },
        { name: "test", type: "test" },
      ]);
      expect(
        await jsonOf(await send(h, "/task", { body: { split: "test", index: 0 }, headers: deploy("x/y") })),
      ).toEqual({
        task: tasks.test![0],
        env_name: "qa",
      });
      const sid = await newEpisode(h, { split: "test", index: 0 });
      expect(await jsonOf(await send(h, "/prompt", { sid }))).toEqual([
        { text: "What is 2 + 2?", detail: null, type: "text" },
      ]);
      const fs = await framesOf(
        await send(h, "/call", { sid, body: { name: "submit", input: { answer: "4" } } }),
      );
      expect(resultOf(fs)).toMatchObject({ ok: true, output: { reward: 1, finished: true } });
    } finally {
      await h.close();
    }
  });
});

describe("a host with several environments", () => {
  it("routes bare discovery paths by X-Deployment (case ignored, namespace/name too)", async () => {
    const h = makeHandler();
    expect(
      await jsonOf(await send(h, "/num_tasks", { body: { split: "huge" }, headers: deploy("Indexed") })),
    ).toEqual({
      num_tasks: 100_000,
    });
    expect(
      await jsonOf(
        await send(h, "/task_range", { body: { split: "train", stop: 1 }, headers: deploy("team/qa") }),
      ),
    ).toEqual({ tasks: [tasks.train![0]], env_name: "qa" });
    await expectError(
      send(h, "/tools"),
      404,
      /^\/tools names no environment and this server hosts several \(qa, /,
    );
    await expectError(
      send(h, "/tools", { headers: deploy("nope") }),
      404,
      /^Unknown environment "nope" \(X-Deployment header\)/,
    );
  });

  it("binds /create to the X-Deployment environment when the body names none", async () => {
    const h = makeHandler();
    const sid = await newEpisode(h, { split: "huge", index: 7 }, deploy("indexed"));
    expect(await jsonOf(await send(h, "/prompt", { sid }))).toEqual([
      { text: "task 7", detail: null, type: "text" },
    ]);
    // The body's env_name wins over the header.
    const other = await newEpisode(h, { env_name: "qa", split: "test", index: 0 }, deploy("indexed"));
    expect(await jsonOf(await send(h, "/prompt", { sid: other, headers: deploy("indexed") }))).toEqual([
      { text: "What is 2 + 2?", detail: null, type: "text" },
    ]);
  });

  it("a session-bound bare path follows its session, whatever X-Deployment says", async () => {
    const h = makeHandler();
    const sid = await newEpisode(h, { env_name: "indexed", split: "huge", index: 3 });
    const tools = (await jsonOf(await send(h, "/task_tools", { sid, headers: deploy("qa") }))) as {
      tools: { name: string }[];
    };
    expect(tools.tools.map((t) => t.name)).toEqual(["noop", "hint"]);
    const fs = await framesOf(
      await send(h, "/call", { sid, body: { name: "hint", input: {} }, headers: deploy("qa") }),
    );
    expect(fs[1]).toEqual(
      ev(
        "end",
        '{"ok":true,"output":{"blocks":[{"text":"hint 3","detail":null,"type":"text"}],"metadata":null,"reward":null,"finished":false}}',
      ),
    );
    // Unknown and ended sessions answer as on /{env}/... paths; a missing header is a 400.
    await expectError(send(h, "/prompt", { sid: "never" }), 404, /^Session not found/);
    await send(h, "/delete", { sid, method: "POST" });
    await expectError(send(h, "/call", { sid, body: { name: "hint", input: {} } }), 410, /was deleted/);
    await expectError(send(h, "/prompt"), 400, /^X-Session-ID header is required$/);
  });

  it("binds an unbound session by the X-Deployment of its first bare request", async () => {
    const h = makeHandler();
    const sid = await newEpisode(h, { task_spec: { i: 42 } });
    await expectError(send(h, "/prompt", { sid }), 404, /names no environment/);
    expect(await jsonOf(await send(h, "/prompt", { sid, headers: deploy("indexed") }))).toEqual([
      { text: "task 42", detail: null, type: "text" },
    ]);
  });
});

describe("/create fields of the OpenReward platform", () => {
  it("answers 400 naming toolset_name as a platform option this host does not offer", async () => {
    const h = makeHandler();
    const { sid } = (await (await send(h, "/create_session", { method: "POST" })).json()) as { sid: string };
    await expectError(
      send(h, "/create", { sid, body: { env_name: "qa", split: "train", index: 0, toolset_name: "codex" } }),
      400,
      /^toolset_name: an OpenReward platform option \(a built-in toolset bound to the session, the client's toolset= argument\) that this host does not offer; leave it out$/,
    );
    expect(h.host.sessionCount).toBe(0);
  });
});

describe("/create_session", () => {
  it("answers SSE (task_id, then an empty end) when asked, as the OpenReward client requires", async () => {
    const h = makeHandler();
    const res = await send(h, "/create_session", {
      method: "POST",
      headers: { accept: "text/event-stream" },
    });
    const fs = await framesOf(res);
    expect(fs).toEqual([
      ev("task_id", expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown as string),
      ev("end", ""),
    ]);
  });
});

describe("the ping interval", () => {
  it("is refused at 30 s or more, saying why (the OpenReward client's silence limit)", () => {
    expect(() => hostOptionsFromEnv({ ORS_PING_INTERVAL_MS: "30000" })).toThrow(
      /^ORS_PING_INTERVAL_MS must be below 30000 \(30 s\), got 30000: the OpenReward client gives up on a stream silent for 30 s/,
    );
    expect(hostOptionsFromEnv({ ORS_PING_INTERVAL_MS: "29999" })).toEqual({ pingIntervalMs: 29_999 });
    expect(() => createOrsHandler([qa], { pingIntervalMs: 60_000 })).toThrow(
      /^pingIntervalMs must be below 30000/,
    );
  });
});
