// The child of crash-recovery.test.ts: a playground process that records into a data folder and is
// then killed with SIGKILL. It leaves a call in flight on the reference server, an episode on its
// built-in host, and a run whose model does not answer; prints `READY {...}` once all of it is in
// the store. Usage: node --import tsx killed-process.ts <data-dir> <reference-url> <model-base-url>
import { allowServerOnlyUnderNode } from "@/lib/app-server/server-only-hook";

await allowServerOnlyUnderNode();
const { createPlayground } = await import("@/lib/playground");
const [dir, refUrl, modelUrl] = process.argv.slice(2);
const pg = createPlayground(
  { PLAYGROUND_DATA_DIR: dir, ORS_SERVERS: `py=${refUrl}`, PLAYGROUND_MODELS: `fix=${modelUrl}` },
  { scriptRoots: null },
);
await pg.ready;

const py = pg.clientFor("py");
const { sid } = await py.createSession();
await py.create(sid, { env_name: "canvas", split: "train", index: 0 });
await py.prompt("canvas", sid);
// The battery waits a second per milliwatt: in flight when the process dies.
void py.callTool("canvas", sid, { name: "battery", input: { action: "wait", power_mw: 60 } }).catch(() => {});

const local = pg.clientFor("local");
const { sid: localSid } = await local.createSession();
await local.create(localSid, { env_name: "math", split: "train", index: 0 });
await local.prompt("math", localSid);

const run = await pg.runs.start({
  server: "local",
  env: "math",
  split: "test",
  tasks: "0-3",
  concurrency: 2,
  policy: { kind: "model", endpoint: "fix", model: "oracle" },
});

for (;;) {
  await pg.recorder.idle();
  const t = await pg.store.findRunning("py", sid);
  const inflight = t ? (await pg.store.get(t.id))!.steps.some((s) => s.ok === null) : false;
  const running = (await pg.store.runEpisodes(run.id)).filter(
    (e) => e.status === "running" && e.trajectoryId,
  ).length;
  if (inflight && running === 2) break;
  await new Promise((r) => setTimeout(r, 50));
}
console.log(`READY ${JSON.stringify({ sid, localSid, runId: run.id })}`);
setInterval(() => {}, 60_000);
