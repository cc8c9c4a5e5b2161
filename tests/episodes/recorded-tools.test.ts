// Every recorded episode keeps the tool specs it was played with (lib/trajectory/FORMAT.md "Tools"):
// those the relay last listed for its environment when it started, replaced by the session's own
// /task_tools; and the relay's annotation headers (x-playground-run, x-playground-agent) reach the
// record, are never forwarded, and are ignored when they do not read as theirs.
import { afterAll, beforeAll, expect, it } from "vitest";
import { AGENT_HEADER, encodeAgent, encodeRunTag, RUN_HEADER } from "@/lib/relay/annotations";
import { type TestPlayground, testPlayground } from "../runs/helpers";

let t: TestPlayground;
beforeAll(() => {
  t = testPlayground();
});
afterAll(async () => {
  await t.close();
});

it("records the tools listed before the episode, then the session's own", async () => {
  const ors = t.pg.clientFor("local");
  await ors.tools("tasktools");
  const { sid } = await ors.createSession();
  await ors.create(sid, { env_name: "tasktools", split: "train", index: 0 });
  await t.pg.recorder.idle();
  const id = (await t.pg.store.findRunning("local", sid))!.id;
  const shared = (await ors.tools("tasktools")).tools;
  expect((await t.pg.store.get(id))?.tools).toEqual(shared);
  const own = (await ors.taskTools("tasktools", sid)).tools;
  expect(own.length).toBeGreaterThan(shared.length);
  await t.pg.recorder.idle();
  expect((await t.pg.store.get(id))?.tools).toEqual(own);
  await ors.delete(sid);
});

it("reads the annotation headers into the record; ignores forged or broken ones", async () => {
  const tagged = t.pg.clientFor("local", {
    headers: { [RUN_HEADER]: encodeRunTag({ id: "rTest", task_index: 2, repeat: 1 }) },
  });
  const { sid } = await tagged.createSession();
  await tagged.create(sid, { env_name: "math", split: "train", index: 2 });
  await tagged.prompt("math", sid);
  await tagged.callTool(
    "math",
    sid,
    { name: "submit", input: { answer: "1" } },
    {
      headers: { [AGENT_HEADER]: encodeAgent({ policy: "script", turn: 1, call_id: "c-1", message: "hi" }) },
    },
  );
  await t.pg.recorder.idle();
  const tr = (await t.pg.store.get((await t.pg.store.findBySession("local", sid))!.id))!;
  expect(tr.run).toEqual({ id: "rTest", task_index: 2, repeat: 1 });
  expect(tr.steps[0]!.agent).toEqual({ policy: "script", turn: 1, call_id: "c-1", message: "hi" });

  const forged = t.pg.clientFor("local", {
    headers: {
      [RUN_HEADER]: "not!base64",
      [AGENT_HEADER]: encodeAgent({ policy: "x", turn: 1, call_id: "c" }).slice(2),
    },
  });
  const { sid: other } = await forged.createSession();
  await forged.create(other, { env_name: "math", split: "train", index: 3 });
  await forged.callTool("math", other, { name: "submit", input: { answer: "1" } });
  await t.pg.recorder.idle();
  const plain = (await t.pg.store.get((await t.pg.store.findBySession("local", other))!.id))!;
  expect(plain).not.toHaveProperty("run");
  expect(plain.steps[0]).not.toHaveProperty("agent");
});
