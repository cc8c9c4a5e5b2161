// `serve --workers 2 --env envs.ts` (real workers behind a real nginx, an author's module in a folder
// outside the repository): every worker reloads a saved module and ends its sessions on the old code;
// session ids follow the user's ORS_SESSION_ID_PREFIX and still route; a module that does not load
// stops the start with the workers' message; when the supervisor is killed (kill -9), its workers
// and nginx stop by themselves and its run folder goes; when nginx dies, the command stops (exit 1).
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, counterModule, eventually, orsAt, run, tempDir } from "../environments/helpers";
import { nginxBinary } from "../support/nginx";
import { type ScaledHost, startScaled, until } from "./helpers";

const nginx = await nginxBinary("serve --workers --env");

const envs = (description: string) => counterModule(description, { starts: [1], reward: "1" });

describe("serve --workers with an author's module", { timeout: 120_000 }, () => {
  const tmp = tempDir("ors-scale-module-");
  let host: ScaledHost;

  beforeAll(async () => {
    writeFileSync(path.join(tmp.dir, "envs.ts"), envs("Say the next number."));
    host = await startScaled(nginx.path, 2, {
      cwd: tmp.dir,
      args: ["--env", "envs.ts"],
      env: { ORS_SESSION_ID_PREFIX: "team.a-" },
    });
  });

  afterAll(async () => {
    await host?.proc.stop();
    tmp.remove();
  });

  /** An episode on worker `index` (create_session is spread: ask until one lands there). */
  async function episodeOn(index: number): Promise<string> {
    const ors = orsAt(host.url);
    for (let i = 0; i < 40; i++) {
      const sid = await ors.episode("counter", "train", 0);
      if (sid.startsWith(`team.a-w${index}-r0-`)) return sid;
      await ors.post("/delete", {}, sid);
    }
    throw new Error(`no session on worker ${index}`);
  }

  it("says every worker reloads the module, and routes ids under the user's prefix", async () => {
    expect(host.proc.out()).toMatch(
      /From \.\/envs\.ts: counter \(every worker reloads it when you save it; sessions on the old code end\)/,
    );
    expect(host.proc.out()).toMatch(/worker 1: pid \d+ on \S+, session ids team\.a-w1-r0-…/);
    const ors = orsAt(host.url);
    for (const index of [0, 1]) {
      const sid = await episodeOn(index);
      expect(await ors.call("counter", sid, "step", { n: 2 })).toMatchObject({ ok: true });
      expect((await ors.post("/delete", {}, sid)).status).toBe(200);
    }
  });

  it("every worker reloads a saved module; sessions on the old code end, saying why", async () => {
    const ors = orsAt(host.url);
    const old = [await episodeOn(0), await episodeOn(1)];
    writeFileSync(path.join(tmp.dir, "envs.ts"), envs("Say the number after the last one."));
    await eventually(async () =>
      /\[worker 0\] .*reloaded \.\/envs\.ts/.test(host.proc.out()) &&
      /\[worker 1\] .*reloaded \.\/envs\.ts/.test(host.proc.out())
        ? true
        : undefined,
    );
    for (const sid of old)
      expect(await ors.call("counter", sid, "step", { n: 3 })).toEqual({
        status: 404,
        error: `Session "${sid}" ended: its environment was reloaded (its code changed); start a new session`,
      });
    for (const index of [0, 1]) {
      const sid = await episodeOn(index);
      const tools = (await ors.get("/counter/tools", sid)) as { tools: { description: string }[] };
      expect(tools.tools[0]!.description).toBe("Say the number after the last one.");
    }
  });

  it("stops its workers and nginx by themselves when the supervisor is killed", async () => {
    const pids = host.livePids();
    expect(pids).toHaveLength(3);
    process.kill(host.proc.child.pid!, "SIGKILL");
    expect(await until(() => host.livePids().length === 0, 15_000)).toBe(true);
    expect(await until(() => !existsSync(host.runDir), 5_000)).toBe(true);
    await expect(fetch(`${host.url}/health`)).rejects.toThrow();
  });

  it("stops, exit code 1 with nginx's reason, when nginx stops by itself", async () => {
    const one = await startScaled(nginx.path, 1, {
      cwd: tmp.dir,
      args: ["--env", "envs.ts"],
    });
    try {
      const exited = new Promise<number | null>((r) => one.proc.child.once("exit", (code) => r(code)));
      process.kill(one.nginxPid, "SIGKILL");
      expect(await exited).toBe(1);
      expect(one.proc.err()).toMatch(/serve: nginx \(pid \d+\) stopped by itself \(signal SIGKILL\)/);
      expect(await until(() => one.livePids().length === 0, 15_000)).toBe(true);
      // nginx's own workers outlive their killed master: the command stops them too (its group).
      expect(await until(() => !groupAlive(one.nginxPid), 5_000)).toBe(true);
      expect(existsSync(one.runDir)).toBe(false);
    } finally {
      await one.proc.stop();
    }
  });

  it("does not start when the module does not load: the workers' message, exit code 1", async () => {
    writeFileSync(path.join(tmp.dir, "broken.ts"), "export default [;\n");
    const r = await run(
      [BIN, "serve", "--workers", "2", "--port", "0", "--nginx", nginx.path, "--env", "broken.ts"],
      {
        cwd: tmp.dir,
      },
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^serve: worker \d exited while starting \(exit code 1\):\nserve: .*broken\.ts/m);
    expect(r.out).not.toMatch(/listening on/);
  });
});

/** Whether any process is left in the process group `pgid`. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
