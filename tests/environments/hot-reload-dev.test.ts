// Hot reload under `npm run dev` (the app's entry in development mode, a real process): with
// ORS_ENVS pointing at a temporary copy of a module, editing the file makes the next request use the
// new code — discovery and a new episode — with no restart, while the session opened on the old code
// ends as "environment reloaded" (the host answers 404 saying so, and its recorded episode ends with
// that error), and the recorded trajectories and the added server are still there. A save of the same
// bytes reloads nothing and ends no episode; a save that does not load is in
// GET /api/environments/status (the error, its file, line and text, the environments held on their
// previous code) until it is undone or fixed.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReloadStatus } from "@/lib/environments/reload-status";
import { echoModule } from "../fixtures/echo-env-module";
import { eventually, orsAt, type Proc, REPO, start, tempDir, WITH_TOKEN } from "./helpers";

const tmp = tempDir("ors-dev-reload-");
const file = path.join(tmp.dir, "envs.ts");
let app: Proc;
let base = "";

beforeAll(async () => {
  writeFileSync(file, echoModule("Say the word.", 1));
  app = start(["--import", "tsx", "lib/app-server/main.ts", "--dev", "--port", "0"], {
    cwd: REPO,
    env: { ORS_ENVS: file, PLAYGROUND_DATA_DIR: path.join(tmp.dir, "data"), ORS_SERVERS: "" },
  });
  base = (await app.waitFor(/ORS Playground \(development mode\) on (http:\/\/\S+)/, 120_000))[1]!;
}, 180_000);

afterAll(async () => {
  await app?.stop();
  tmp.remove();
});

interface Summary {
  id: string;
  sid: string | null;
  env: string | null;
  end_reason: string | null;
  error: string | null;
  total_reward: number;
}

const trajectories = async () =>
  (
    (await (await fetch(`${base}/api/trajectories?server=local`, { headers: WITH_TOKEN })).json()) as {
      items: Summary[];
    }
  ).items;

describe("hot reload with the dev entry", () => {
  it("serves the edited module on the next request, ends the old session as reloaded, keeps the store and the servers", async () => {
    // Recorded: through the relay, as the UI drives episodes.
    const relay = orsAt(`${base}/api/servers/local`);
    const direct = orsAt(`${base}/api/ors`);
    const added = await fetch(`${base}/api/servers`, {
      method: "POST",
      headers: { ...WITH_TOKEN, "content-type": "application/json" },
      body: JSON.stringify({ name: "other", url: "http://127.0.0.1:8769" }),
    });
    expect(added.status).toBe(201);

    const finished = await relay.episode("echo", "train", 0);
    expect(await relay.call("echo", finished, "say", { word: "alpha" })).toMatchObject({
      ok: true,
      output: { reward: 1, finished: true },
    });
    const open = await relay.episode("echo", "train", 1);
    expect(await relay.get("/echo/prompt", open)).toEqual([
      { type: "text", text: "Say beta.", detail: null },
    ]);
    await eventually(async () => {
      const t = (await trajectories()).find((x) => x.sid === open);
      return t && t.end_reason === null ? t : undefined;
    });

    writeFileSync(file, echoModule("Say the word, exactly.", 0.5));
    // Bounded, not timed: a busy machine recompiles slowly (speed is for benchmarks, not tests).
    const description = await eventually(async () => {
      const { tools } = (await direct.get("/echo/tools")) as { tools: { description: string }[] };
      return tools[0]!.description === "Say the word, exactly." ? tools[0]!.description : undefined;
    }, 60_000);
    expect(description).toBe("Say the word, exactly.");

    // A new episode runs the new reward.
    const fresh = await relay.episode("echo", "train", 1);
    expect(await relay.call("echo", fresh, "say", { word: "beta" })).toMatchObject({
      ok: true,
      output: { reward: 0.5 },
    });

    // The session opened on the old code ended, saying why, in the host and in its record.
    expect(await relay.call("echo", open, "say", { word: "beta" })).toMatchObject({
      status: 404,
      error: expect.stringContaining("its environment was reloaded"),
    });
    const ended = await eventually(async () => {
      const t = (await trajectories()).find((x) => x.sid === open);
      return t?.end_reason ? t : undefined;
    });
    expect(ended.end_reason).toBe("error");
    expect(ended.error).toMatch(
      /^environment reloaded: .*envs\.ts changed while this episode of echo ran on the old code/,
    );

    // Nothing else was lost: the finished episode's record, the added server.
    const kept = (await trajectories()).find((x) => x.sid === finished);
    expect(kept).toMatchObject({ end_reason: "finished", total_reward: 1 });
    const servers = (await (await fetch(`${base}/api/servers`, { headers: WITH_TOKEN })).json()) as {
      name: string;
    }[];
    expect(servers.map((s) => s.name)).toContain("other");
    expect(app.out()).toMatch(/\[ors-playground\] reloaded .*envs\.ts: now hosting echo, math/);
  }, 240_000);

  it("a save of the same bytes ends nothing; a save that does not load is in the status until undone or fixed", async () => {
    const relay = orsAt(`${base}/api/servers/local`);
    const status = async () =>
      (await (
        await fetch(`${base}/api/environments/status`, { headers: WITH_TOKEN })
      ).json()) as ReloadStatus;
    const occurrences = (re: RegExp, n: number) =>
      eventually(async () => ((app.out().match(re)?.length ?? 0) >= n ? true : undefined));
    const serving = readFileSync(file, "utf8");
    expect(await status()).toMatchObject({ watching: ["./envs/", file], errors: [] });

    const open = await relay.episode("echo", "train", 0);
    await eventually(async () => ((await trajectories()).some((x) => x.sid === open) ? true : undefined));
    writeFileSync(file, serving);
    await occurrences(/envs\.ts saved with the same contents: nothing to reload/g, 1);
    expect((await trajectories()).find((x) => x.sid === open)?.end_reason).toBeNull();

    // A syntax error on the module's last line.
    const broken = `${serving}export const oops = [;\n`;
    const line = broken.split("\n").length - 1;
    writeFileSync(file, broken);
    const failed = await eventually(async () => {
      const s = await status();
      return s.errors.length ? s : undefined;
    });
    expect(failed.errors).toEqual([
      {
        message: 'Unexpected ";"',
        file,
        line,
        column: 22,
        excerpt: "export const oops = [;",
        changed: [file],
        environments: ["echo"],
        at: expect.any(Number),
      },
    ]);
    // The previous code serves on: the session goes on (a session the relay started is reached
    // through the relay only).
    expect(await relay.get("/echo/prompt", open)).toEqual([
      { type: "text", text: "Say alpha.", detail: null },
    ]);

    // Undone (the bytes that serve): nothing reloads, the error is gone.
    writeFileSync(file, serving);
    await occurrences(/envs\.ts: back to the code that serves, nothing to reload/g, 1);
    expect((await status()).errors).toEqual([]);

    // An error thrown while the module runs: located at its line, named by its type.
    writeFileSync(file, `${serving}export const boom = (globalThis as any).missing.x;\n`);
    const thrown = await eventually(async () => (await status()).errors[0]);
    expect(thrown).toMatchObject({
      message: "TypeError: Cannot read properties of undefined (reading 'x')",
      file,
      line,
      excerpt: "export const boom = (globalThis as any).missing.x;",
    });
    expect((await trajectories()).find((x) => x.sid === open)?.end_reason).toBeNull();

    // A fix: it reloads, the error is gone, the episode of the old code ends.
    writeFileSync(file, echoModule("Say the word, fixed.", 1));
    const fixed = await eventually(async () => {
      const s = await status();
      return s.errors.length === 0 && s.last_reload?.changed.includes(file) ? s : undefined;
    });
    expect(fixed.last_reload!.at).toBeGreaterThan(failed.errors[0]!.at);
    const ended = await eventually(async () => {
      const t = (await trajectories()).find((x) => x.sid === open);
      return t?.end_reason ? t : undefined;
    });
    expect(ended.error).toMatch(/^environment reloaded: /);
  }, 120_000);
});
