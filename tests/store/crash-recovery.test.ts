// After kill -9 of the app (issue 16): a process recording into a real SQLite file is killed with
// SIGKILL while a call is in flight, an episode runs on its built-in host and a run plays; the next
// process to start on the same data folder marks the in-flight step interrupted in the store itself
// (its episode stays open: the server that has the session did not die), ends the built-in host's
// episode, shows the run interrupted (its episodes too), and can resume it.
import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createPlayground } from "@/lib/playground";
import { HOST_STOPPED_ERROR, INTERRUPTED_STEP_ERROR, RUN_STOPPED_ERROR } from "@/lib/store/types";
import { tempDir } from "../episodes/helpers";
import { type RunningModelServer, startModelServer } from "../fixtures/model-server/spawn";
import { type RunningReferenceServer, startReferenceServer } from "../fixtures/reference-server/spawn";

const REPO = path.resolve(__dirname, "../..");
let ref: RunningReferenceServer;
let model: RunningModelServer;

beforeAll(async () => {
  [ref, model] = await Promise.all([startReferenceServer({ setupMs: 5 }), startModelServer()]);
});
afterAll(async () => {
  await Promise.all([ref?.stop(), model?.stop()]);
});

it("marks what a killed process left in flight as interrupted at the next start", async () => {
  const dir = tempDir("crash-");
  await model.delay(60_000); // the run's model never answers before the kill
  const child = spawn(
    process.execPath,
    ["--import", "tsx", path.join(__dirname, "killed-process.ts"), dir, ref.url, model.baseUrl],
    {
      cwd: REPO,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let err = "";
  child.stderr.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const ready = await new Promise<{ sid: string; localSid: string; runId: string }>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /READY (\{.*\})/.exec(out);
      if (m) resolve(JSON.parse(m[1]!));
    });
    child.once("exit", (code) => reject(new Error(`the child exited (${code}) before it was ready: ${err}`)));
  });
  const gone = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await gone;
  await model.delay(0);

  const pg = createPlayground(
    { PLAYGROUND_DATA_DIR: dir, ORS_SERVERS: `py=${ref.url}`, PLAYGROUND_MODELS: `fix=${model.baseUrl}` },
    { scriptRoots: null },
  );
  try {
    await pg.ready;
    const remote = (await pg.store.findBySession("py", ready.sid))!;
    const t = (await pg.store.get(remote.id))!;
    // The reference server still has the session: a client may go on with the episode.
    expect(t.end_reason).toBeNull();
    expect(t.steps).toHaveLength(1);
    expect(t.steps[0]).toMatchObject({ tool: "battery", ok: false, error: INTERRUPTED_STEP_ERROR });
    expect(await pg.store.findBySession("local", ready.localSid)).toMatchObject({
      end_reason: "error",
      error: HOST_STOPPED_ERROR,
    });
    expect(await pg.store.getRun(ready.runId)).toMatchObject({
      status: "interrupted",
      error: RUN_STOPPED_ERROR,
    });
    const eps = await pg.store.runEpisodes(ready.runId);
    expect(eps.map((e) => e.status).sort()).toEqual(["interrupted", "interrupted", "pending", "pending"]);
    // The run's episodes were on the built-in host, which died with the process.
    for (const e of eps.filter((x) => x.trajectoryId))
      expect(await pg.store.summary(e.trajectoryId!)).toMatchObject({
        end_reason: "error",
        error: HOST_STOPPED_ERROR,
      });
    // No step is left in flight anywhere.
    for await (const x of pg.store.iterate({})) for (const s of x.steps) expect(s.ok).not.toBeNull();
    await pg.runs.resume(ready.runId);
    expect((await pg.runs.settled(ready.runId))?.status).toBe("done");
    expect(
      (await pg.store.runEpisodes(ready.runId)).every((e) => e.status === "done" && e.reward === 1),
    ).toBe(true);
  } finally {
    await pg.close();
  }
});
