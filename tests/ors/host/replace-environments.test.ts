// Hot reload at the host (OrsHost.replaceEnvironments): the new code serves the next request; the
// sessions of replaced environments end as "reloaded" (a running call gets `event: error`, teardown
// runs, later requests get 404 saying why); sessions of environments kept as they were go on.
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineEnvironment, defineTool, text } from "@/lib/ors/sdk";
import { allEnvs, closeHandlers, controls, indexed, makeHandler, qa, tasks } from "./helpers";
import { expectError, framesOf, jsonOf, newEpisode, resultOf, send } from "./wire";

afterEach(closeHandlers);

/** `qa` as if its file was edited: another description and another reward. */
const qaEdited = defineEnvironment<(typeof tasks)["train"][number]>({
  name: "qa",
  splits: ["train", "test"],
  listTasks: (split) => tasks[split]!,
  getPrompt: ({ task }) => `edited: ${task.question}`,
  tools: {
    submit: defineTool({
      description: "Submit an answer (edited)",
      input: z.object({ answer: z.string() }),
      run: () => ({ blocks: [text("graded by the new code")], reward: 0.25, finished: true }),
    }),
  },
});

describe("replaceEnvironments", () => {
  it("serves the new code at once and ends the sessions of the replaced environment only", async () => {
    const h = makeHandler();
    const onOld = await newEpisode(h, { env_name: "qa", split: "train", index: 0 });
    const onKept = await newEpisode(h, { env_name: "indexed", split: "huge", index: 3 });
    const running = await send(h, "/qa/call", { sid: onOld, body: { name: "held", input: {} } });

    const ended = await h.host.replaceEnvironments(allEnvs.map((e) => (e === qa ? qaEdited : e)));
    expect(ended).toEqual([onOld]);

    // The call in flight ends with the reason, as for any teardown.
    const frames = await framesOf(running);
    expect(frames.at(-1)).toMatchObject({ event: "error", data: expect.stringMatching(/was reloaded/) });
    expect(controls.teardowns).toContain(onOld);
    expect(controls.aborted).toEqual(["held"]);
    // Later requests of the old session: 404, saying why.
    await expectError(
      send(h, "/qa/call", { sid: onOld, body: { name: "submit", input: { answer: "1" } } }),
      404,
      /ended: its environment was reloaded \(its code changed\); start a new session/,
    );
    await expectError(send(h, "/ping", { method: "POST", sid: onOld }), 404, /was reloaded/);

    // The new code: discovery and a new episode.
    const tools = (await jsonOf(await send(h, "/qa/tools"))) as { tools: { description: string }[] };
    expect(tools.tools.map((t) => t.description)).toEqual(["Submit an answer (edited)"]);
    const sid = await newEpisode(h, { env_name: "qa", split: "train", index: 0 });
    expect(await jsonOf(await send(h, "/qa/prompt", { sid }))).toEqual([
      { type: "text", text: "edited: What is 0 + 1?", detail: null },
    ]);
    const result = resultOf(
      await framesOf(await send(h, "/qa/call", { sid, body: { name: "submit", input: { answer: "x" } } })),
    );
    expect(result).toMatchObject({ ok: true, output: { reward: 0.25, finished: true } });

    // The environment kept as it was keeps its session.
    const kept = resultOf(
      await framesOf(await send(h, "/indexed/call", { sid: onKept, body: { name: "hint", input: {} } })),
    );
    expect(kept).toMatchObject({ ok: true, output: { blocks: [{ text: "hint 3" }] } });
    expect(controls.teardowns).not.toContain(onKept);
  });

  it("adds and removes environments; the first is the new default", async () => {
    const h = makeHandler();
    await h.host.replaceEnvironments([indexed, qaEdited]);
    expect(await jsonOf(await send(h, "/list_environments"))).toEqual(["indexed", "qa"]);
    await expectError(
      send(h, "/slowsetup/tools"),
      404,
      /Unknown environment "slowsetup"; this server hosts: indexed, qa/,
    );
  });

  it("refuses an invalid list and keeps serving the old one", async () => {
    const h = makeHandler();
    const sid = await newEpisode(h, { env_name: "qa", split: "train", index: 1 });
    await expect(h.host.replaceEnvironments([qaEdited, qa])).rejects.toThrow(/two environments named "qa"/);
    await expect(h.host.replaceEnvironments([])).rejects.toThrow(/at least one environment/);
    const tools = (await jsonOf(await send(h, "/qa/tools"))) as { tools: { name: string }[] };
    expect(tools.tools.map((t) => t.name)).toContain("held");
    const r = resultOf(
      await framesOf(await send(h, "/qa/call", { sid, body: { name: "submit", input: { answer: "2" } } })),
    );
    expect(r).toMatchObject({ ok: true, output: { reward: 1 } });
  });

  it("keeps a session not yet bound to an environment: its first request binds it to the new code", async () => {
    const h = makeHandler();
    // No env_name on a multi-environment host: the reference client's split+index session.
    const sid = await newEpisode(h, { split: "train", index: 0 });
    expect(await h.host.replaceEnvironments(allEnvs.map((e) => (e === qa ? qaEdited : e)))).toEqual([]);
    expect(await jsonOf(await send(h, "/qa/prompt", { sid }))).toEqual([
      { type: "text", text: "edited: What is 0 + 1?", detail: null },
    ]);
  });
});
