// `ors-playground stub` as a user types it (real child processes on loopback): a run recorded with
// the real `run` command on our host, saved with the host's surface and served; the stub passes
// `check --strict`, `diff` finds no surface change from the real server, and the recorded episodes
// replay identically with our client, the reference Python client (as modelled) and the OpenReward
// client. A run on the reference-shaped server is served straight from the store. Off the record,
// a tool error naming what was recorded; `--lenient`, the nearest recorded result, saying so.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseStubFile } from "@/lib/conformance/stub/record";
import { createOrsClient } from "@/lib/ors/client";
import { openStore } from "@/lib/store/sqlite/store";
import type { Trajectory } from "@/lib/trajectory/schema";
import {
  recorded,
  replayAsReferenceClient,
  replayWithOpenRewardClient,
  replayWithOrsClient,
} from "../conformance/stub/replay";
import { type RunningReferenceServer, startReferenceServer } from "../fixtures/reference-server/spawn";
import { type SpawnedServer, spawnOrsServer } from "../relay/helpers";
import { tempDir } from "../runs/helpers";
import { type BinServer, flags, recordRun, runBin, startBin } from "./helpers";

const ORACLE = path.resolve(__dirname, "../fixtures/quality/oracle.ts");

let host: SpawnedServer;
let ref: RunningReferenceServer;
const data = tempDir("stub-cli-");
const stubFile = path.join(data, "math-stub.jsonl");
let mathStub: BinServer;
let mathEpisodes: Trajectory[];

const record = (url: string, args: string[]) => recordRun(url, args, data);

beforeAll(async () => {
  [host, ref] = await Promise.all([
    spawnOrsServer(0),
    startReferenceServer({ setupMs: 5, envs: ["sound", "farmplanner"] }),
  ]);
  const mathRun = await record(
    host.url,
    flags({ env: "math", split: "test", tasks: "0-5", policy: "script", script: ORACLE }),
  );
  // A multi-step episode with wrong guesses too (guess: higher / lower), by random inputs.
  const guessRun = await record(
    host.url,
    flags({ env: "guess", split: "train", tasks: "0-1", policy: "random", "max-turns": "4" }),
  );
  for (const [run, file] of [
    [mathRun, stubFile],
    [guessRun, path.join(data, "guess-stub.jsonl")],
  ] as const) {
    const saved = await runBin(["stub", run, "--surface", host.url, "--save", file, "--data-dir", data]);
    expect(saved.code, saved.stderr).toBe(0);
  }
  mathEpisodes = parseStubFile(fs.readFileSync(stubFile, "utf8")).trajectories;
  mathStub = await startBin(["stub", stubFile, "--port", "0"]);
}, 240_000);

afterAll(async () => {
  await Promise.all([host?.stop(), ref?.stop(), mathStub?.stop()]);
});

describe("stub of a run saved with its server's surface", () => {
  it("the file holds the surface and the run's episodes", () => {
    const f = parseStubFile(fs.readFileSync(stubFile, "utf8"));
    expect(f.surface?.url).toBe(host.url);
    expect(f.surface?.environments.map((e) => e.name)).toEqual(["math"]);
    expect(f.surface!.environments[0]!.splits.map((s) => [s.name, s.count])).toEqual([
      ["train", 800],
      ["test", 200],
    ]);
    expect(f.trajectories.map((t) => t.task)).toEqual(
      [0, 1, 2, 3, 4, 5].map((index) => ({ split: "test", index })),
    );
  });

  it("passes our conformance check with --strict", async () => {
    const r = await runBin(["check", mathStub.url, "--strict"]);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(
      /Summary: 0 break the reference client, 0 differ from the spec, 0 errors, .*: clean\n/,
    );
  }, 120_000);

  it("diff between the real server and its stub finds no surface change", async () => {
    const r = await runBin(["diff", host.url, mathStub.url, "--env", "math", "--data-dir", data]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Verdict: unchanged: no surface change");
  }, 60_000);

  it("replays every recorded episode identically with our client, the reference client and the OpenReward client", async () => {
    for (const t of mathEpisodes) {
      const want = recorded(t);
      expect(want.steps[0]).toMatchObject({ ok: true, reward: 1, finished: true });
      expect(await replayWithOrsClient(mathStub.url, t)).toEqual(want);
      expect(await replayAsReferenceClient(mathStub.url, t)).toEqual(want);
      expect(await replayWithOpenRewardClient(mathStub.url, t)).toEqual(want);
    }
  }, 60_000);

  it("multi-step episodes replay step by step (guess, with its wrong guesses)", async () => {
    const file = path.join(data, "guess-stub.jsonl");
    const { trajectories } = parseStubFile(fs.readFileSync(file, "utf8"));
    expect(trajectories.some((t) => t.steps.length > 1)).toBe(true);
    const stub = await startBin(["stub", file, "--port", "0"]);
    try {
      for (const t of trajectories) {
        expect(await replayAsReferenceClient(stub.url, t)).toEqual(recorded(t));
        expect(await replayWithOpenRewardClient(stub.url, t)).toEqual(recorded(t));
      }
    } finally {
      await stub.stop();
    }
  }, 60_000);

  it("off the record: a tool error naming what was recorded at that step; --lenient: the nearest result, said so", async () => {
    const t = mathEpisodes[0]!;
    const expected = JSON.stringify(t.steps[0]!.input);
    const ors = createOrsClient({ baseUrl: mathStub.url });
    const { sid } = await ors.createSession();
    await ors.create(sid, { env_name: "math", split: "test", index: 0 });
    const off = await ors.callTool("math", sid, { name: "submit", input: { answer: "nope" } });
    expect(off).toEqual({
      ok: false,
      error: `off the record: submit {"answer":"nope"} was not recorded: at step 1 of task test/0 the recording has submit ${expected}`,
    });
    // Task 7 was never played: the stub says so.
    const { sid: other } = await ors.createSession();
    await ors.create(other, { env_name: "math", split: "test", index: 7 });
    expect(await ors.callTool("math", other, { name: "submit", input: { answer: "1" } })).toEqual({
      ok: false,
      error: 'off the record: submit {"answer":"1"} was not recorded: no episode of task test/7 was recorded',
    });
    expect(mathStub.stderr()).toContain('[stub] math: off the record: submit {"answer":"nope"}');

    const lenient = await startBin(["stub", stubFile, "--port", "0", "--lenient"]);
    try {
      const l = createOrsClient({ baseUrl: lenient.url });
      const s = (await l.createSession()).sid;
      await l.create(s, { env_name: "math", split: "test", index: 0 });
      const near = await l.callTool("math", s, { name: "submit", input: { answer: "nope" } });
      expect(near).toMatchObject({ ok: true, output: { reward: 1, finished: true } });
      expect(near.ok && near.output.metadata?.stub).toMatch(
        /^stub --lenient: submit \{"answer":"nope"\} was not recorded \(.*\); this is the recorded result of step 1, submit /,
      );
    } finally {
      await lenient.stop();
    }
  }, 60_000);
});

describe("stub of a run straight from the store", () => {
  it("serves a run recorded on the reference-shaped server; the reference and OpenReward clients replay it", async () => {
    const run = await record(
      ref.url,
      flags({ env: "sound", split: "train", tasks: "0-3", policy: "script", script: ORACLE }),
    );
    const stub = await startBin(["stub", run, "--port", "0", "--data-dir", data]);
    try {
      const store = openStore({ dir: data });
      let episodes: Trajectory[];
      try {
        episodes = (
          await Promise.all((await store.runEpisodes(run)).map((e) => store.get(e.trajectoryId!)))
        ).filter((t): t is Trajectory => !!t);
      } finally {
        await store.close();
      }
      expect(episodes).toHaveLength(4);
      for (const t of episodes) {
        expect(await replayAsReferenceClient(stub.url, t)).toEqual(recorded(t));
        expect(await replayWithOpenRewardClient(stub.url, t)).toEqual(recorded(t));
      }
      // Without a surface, what the run shows: the split it played, up to its last task.
      const ors = createOrsClient({ baseUrl: stub.url });
      expect(await ors.splits("sound")).toEqual([{ name: "train", type: "train" }]);
      expect((await ors.numTasks("sound", "train")).num_tasks).toBe(4);
    } finally {
      await stub.stop();
    }
  }, 120_000);

  it("cannot serve an unknown run, or a file that is not recorded episodes (exit 2)", async () => {
    const unknown = await runBin(["stub", "no-such-run", "--data-dir", data]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("stub: no-such-run: no such file, and no run with that id in");
    const junk = path.join(data, "junk.jsonl");
    fs.writeFileSync(junk, '{"hello": 1}\n');
    const bad = await runBin(["stub", junk, "--data-dir", data]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /stub: .*junk\.jsonl: trajectory: format: Invalid input: expected "ors-trajectory\/1"/,
    );
  }, 60_000);
});
