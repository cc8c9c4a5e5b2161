// The composition root with a spawned server (the reference-shaped test server as a real process):
// registered from the start as `spawned`, refused by the relay until it answers /health, played
// through the relay once ready, and — when a file under --watch changes — restarted, with the
// recorded episode running on it ended saying so (live feed included) and the new process served.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LiveEvent } from "@/lib/episodes/live";
import { createPlayground, type Playground } from "@/lib/playground";
import { invalidServerName } from "@/lib/registry/registry";
import { createServerSupervisor, type ServerSupervisor } from "@/lib/spawn/supervisor";

const REPO = path.resolve(__dirname, "../..");
const REFERENCE = path.join(REPO, "tests/fixtures/reference-server/main.ts");

let dir = "";
let supervisor: ServerSupervisor;
let pg: Playground;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "ors-spawn-pg-"));
  writeFileSync(path.join(dir, "app.py"), "VERSION = 1\n");
  supervisor = await createServerSupervisor(
    [
      {
        name: "ref",
        command: `"${process.execPath}" --import tsx ${REFERENCE} --port {port} --host 127.0.0.1`,
        cwd: REPO,
        watch: [dir],
      },
    ],
    {
      baseEnv: process.env,
      invalidName: invalidServerName,
      orphanGuard: false,
      debounceMs: 100,
      // As the app's server entry does: the store's files (here inside the watched folder) change
      // with every recorded step, and must not restart the server.
      ignorePaths: [path.join(dir, "data")],
    },
  );
  pg = createPlayground(
    { PLAYGROUND_DATA_DIR: path.join(dir, "data"), ORS_SERVERS: "" },
    { spawned: supervisor },
  );
  await pg.ready;
});

afterAll(async () => {
  const pid = supervisor?.get("ref")?.status().pid;
  await pg?.close();
  if (pid) expect(() => process.kill(pid, 0)).toThrow();
  rmSync(dir, { recursive: true, force: true });
});

describe("a spawned server in the playground", () => {
  it("is known from the start, and refused by the relay until it answers /health", async () => {
    const url = supervisor.get("ref")!.url;
    expect((await pg.registry.list()).map((s) => [s.name, s.source, s.url])).toEqual([
      ["local", "builtin", "/api/ors"],
      ["ref", "spawned", url],
    ]);
    const early = await pg.relay.handle(
      new Request("http://playground.internal/api/servers/ref/list_environments"),
      "ref",
      "/list_environments",
    );
    expect(early.status).toBe(502);
    expect(await early.json()).toEqual({ detail: `server "ref" (${url}) is stopped` });
    await expect(pg.registry.remove("ref")).rejects.toThrow(
      'server "ref" comes from --spawn (the playground runs it) and cannot be removed here',
    );
    await supervisor.start();
    await supervisor.settled(60_000);
    expect(supervisor.get("ref")!.status().state).toBe("ready");
    expect(await pg.clientFor("ref").listEnvironments()).toContain("farmplanner");
  });

  it("ends the episodes running on it when it restarts for a change under --watch", async () => {
    const client = pg.clientFor("ref");
    const { sid } = await client.createSession();
    await client.create(sid, { env_name: "farmplanner", split: "train", index: 0 });
    await client.prompt("farmplanner", sid);
    await pg.recorder.idle();
    const running = await pg.store.findRunning("ref", sid);
    expect(running).not.toBeNull();
    const events: LiveEvent[] = [];
    const off = pg.live.subscribe(running!.id, (e) => events.push(e));
    const firstPid = supervisor.get("ref")!.status().pid;

    writeFileSync(path.join(dir, "app.py"), "VERSION = 2\n");
    const deadline = Date.now() + 60_000;
    while ((await pg.store.get(running!.id))?.end_reason == null) {
      if (Date.now() > deadline) throw new Error("the episode was not ended");
      await new Promise((r) => setTimeout(r, 100));
    }
    const ended = (await pg.store.get(running!.id))!;
    const error = `server restarted: ${path.join(dir, "app.py")} changed, so the playground started server "ref" again and the sessions on it are gone. Start a new episode (Restart on this task) to use the new process.`;
    expect(ended).toMatchObject({ end_reason: "error", error });
    expect(events).toContainEqual(expect.objectContaining({ type: "ended", end_reason: "error", error }));
    off();

    await supervisor.settled(60_000);
    expect(supervisor.get("ref")!.status()).toMatchObject({ state: "ready", restarts: 1 });
    expect(supervisor.get("ref")!.status().pid).not.toBe(firstPid);
    // The new process does not know the old session; new episodes work.
    await expect(client.ping(sid)).rejects.toThrow();
    const again = await client.createSession();
    await client.create(again.sid, { env_name: "farmplanner", split: "train", index: 0 });
    expect(await client.prompt("farmplanner", again.sid)).not.toHaveLength(0);
  });

  it("ends, at the next start, the episodes left running on it when the playground stopped", async () => {
    const client = pg.clientFor("ref");
    const { sid } = await client.createSession();
    await client.create(sid, { env_name: "coffeeshop", split: "train", index: 0 });
    await pg.recorder.idle();
    const left = (await pg.store.findRunning("ref", sid))!;
    await pg.close();
    // The next start: the same data, the same server name, a new process (not even started here).
    const next = await createServerSupervisor([{ name: "ref", command: "node x.js", cwd: REPO }], {
      baseEnv: {},
      orphanGuard: false,
    });
    pg = createPlayground(
      { PLAYGROUND_DATA_DIR: path.join(dir, "data"), ORS_SERVERS: "" },
      { spawned: next },
    );
    await pg.ready;
    const deadline = Date.now() + 10_000;
    while ((await pg.store.get(left.id))?.end_reason == null) {
      if (Date.now() > deadline) throw new Error("the episode was not ended");
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await pg.store.get(left.id)).toMatchObject({
      end_reason: "error",
      error:
        'server restarted: the playground was started again, so the playground started server "ref" again and the sessions on it are gone. Start a new episode (Restart on this task) to use the new process.',
    });
  });
});
