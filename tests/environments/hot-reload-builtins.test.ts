// Hot reload of the built-in environments under `npm run dev` (the app's entry in development
// mode, a real process), in a temporary copy of the repository: saving envs/math.ts makes the next
// request serve the new code — a tool's description and its reward — with no restart, and the
// session opened on the old code ends as "environment reloaded"; a touch or a save of the same bytes
// before that reloads nothing and ends no session. The copy's node_modules is hard
// links to this checkout's (a symlink would leave Next's root), so the copy costs about a second.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, orsAt, type Proc, REPO, start, tempDir } from "./helpers";

const tmp = tempDir("ors-builtins-reload-");
const copy = path.join(tmp.dir, "repo");
const mathFile = path.join(copy, "envs/math.ts");
let app: Proc;
let base = "";

/** The repository's own files (what git tracks, or everything but what a checkout builds). */
function sourceFiles(): string[] {
  if (existsSync(path.join(REPO, ".git")))
    return execFileSync("git", ["ls-files", "-z"], { cwd: REPO, encoding: "utf8" })
      .split("\0")
      .filter(Boolean);
  const skip = new Set(["node_modules", ".next", ".data", "test-results", "playwright-report"]);
  const walk = (dir: string): string[] =>
    readdirSync(path.join(REPO, dir), { withFileTypes: true }).flatMap((e) => {
      const rel = path.join(dir, e.name);
      if (skip.has(e.name)) return [];
      return e.isDirectory() ? walk(rel) : [rel];
    });
  return walk("");
}

function copyRepository(): void {
  for (const file of sourceFiles()) {
    if (!existsSync(path.join(REPO, file))) continue; // deleted in the working tree
    mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    cpSync(path.join(REPO, file), path.join(copy, file));
  }
  const linked = spawnSync("cp", ["-al", path.join(REPO, "node_modules"), path.join(copy, "node_modules")]);
  if (linked.status !== 0)
    cpSync(path.join(REPO, "node_modules"), path.join(copy, "node_modules"), {
      recursive: true,
      verbatimSymlinks: true,
    });
}

beforeAll(async () => {
  copyRepository();
  app = start(["--import", "tsx", "lib/app-server/main.ts", "--dev", "--port", "0"], {
    cwd: copy,
    env: { PLAYGROUND_DATA_DIR: path.join(tmp.dir, "data"), ORS_SERVERS: "", ORS_ENVS: "" },
  });
  base = (await app.waitFor(/ORS Playground \(development mode\) on (http:\/\/\S+)/, 120_000))[1]!;
  // Printed after the address, once the environment set is described: waited for, not raced.
  expect((await app.waitFor(/Reloaded when saved: \.\/envs\//, 30_000))[0]).toBeTruthy();
}, 180_000);

afterAll(async () => {
  await app?.stop();
  tmp.remove();
});

const description = async (ors: ReturnType<typeof orsAt>) =>
  ((await ors.get("/math/tools")) as { tools: { description: string }[] }).tools[0]!.description;

describe("hot reload of envs/ with the dev entry", () => {
  it("serves an edited envs/math.ts on the next request and ends the session opened on the old code", async () => {
    const direct = orsAt(`${base}/api/ors`);
    expect(await description(direct)).toMatch(/^Submit your final answer/);
    const { task: first } = (await (await direct.post("/math/task", { split: "test", index: 0 })).json()) as {
      task: { answer: string };
    };
    const open = await direct.episode("math", "test", 0);

    const source = readFileSync(mathFile, "utf8");
    // A touch, then the same text saved again: nothing reloads, the session goes on.
    utimesSync(mathFile, new Date(), new Date());
    writeFileSync(mathFile, source);
    await eventually(async () =>
      /\.\/envs\/math\.ts saved with the same contents: nothing to reload/.test(app.out()) ? true : undefined,
    );
    expect(await direct.get("/math/prompt", open)).toEqual(expect.any(Array));
    expect(app.out()).not.toMatch(/\[ors-playground\] reloaded/);

    const edited = source
      .replace("Submit your final answer to the problem.", "Hand in your final answer.")
      .replace("reward: correct ? 1 : 0,", "reward: correct ? 0.25 : 0,");
    expect(edited).not.toBe(source);
    writeFileSync(mathFile, edited);

    // Bounded, not timed: a busy machine recompiles slowly (speed is for benchmarks, not tests).
    expect(
      await eventually(
        async () => ((await description(direct)).startsWith("Hand in") ? true : undefined),
        60_000,
      ),
    ).toBe(true);

    // A new episode runs the new reward logic.
    const fresh = await direct.episode("math", "test", 0);
    expect(await direct.call("math", fresh, "submit", { answer: first.answer })).toMatchObject({
      ok: true,
      output: { reward: 0.25, finished: true },
    });
    // The session opened before the save ended, saying why.
    expect(await direct.call("math", open, "submit", { answer: first.answer })).toMatchObject({
      status: 404,
      error: expect.stringContaining("its environment was reloaded"),
    });
    expect(app.out()).toMatch(/\[ors-playground\] reloaded \.\/envs\/math\.ts: now hosting math, /);
  }, 120_000);
});
