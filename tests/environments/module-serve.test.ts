// An author's module served by `ors-playground serve --env` (a real process, a module in a folder
// outside the repository): a save that leaves every byte as it was (a touch, the same text saved
// again, a copy renamed over it, a file replaced as git does) reloads nothing and ends no session;
// saving the module or a file it imports reloads it (the next request uses the new code, sessions on
// the old code end as "reloaded"), a save that does not load keeps the old code until a fix, saying
// where it failed, and every mistake at startup is a clear message with exit code 1 (2 for usage).
import { readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, counterModule, eventually, orsAt, type Proc, run, start, tempDir } from "./helpers";

const grade = (reward: string) => `export const REWARD = ${reward};\n`;
const envs = (description: string) =>
  counterModule(description, {
    starts: [1, 5],
    reward: "REWARD",
    imports: 'import { REWARD } from "./grade.js";\n',
  });

const tmp = tempDir("ors-module-");
let server: Proc;
let base = "";

beforeAll(async () => {
  writeFileSync(path.join(tmp.dir, "grade.ts"), grade("1"));
  writeFileSync(path.join(tmp.dir, "envs.ts"), envs("Say the next number."));
  server = start([BIN, "serve", "--env", "envs.ts", "--port", "0"], { cwd: tmp.dir });
  base = (await server.waitFor(/ORS host listening on (http:\/\/\S+) /))[1]!;
});

afterAll(async () => {
  expect(await server.stop()).toBe(0);
  tmp.remove();
});

const toolDescription = async () =>
  ((await orsAt(base).get("/counter/tools")) as { tools: { description: string }[] }).tools[0]!.description;

/** Resolves when `re` has matched `n` times in the server's output. */
async function occurrences(re: RegExp, n: number): Promise<void> {
  await eventually(async () => ((server.out().match(re)?.length ?? 0) >= n ? true : undefined));
}

describe("hot reload of a served module", () => {
  it("a save that changes no byte reloads nothing and ends no session", async () => {
    const ors = orsAt(base);
    const sid = await ors.episode("counter", "train", 0);
    const envsFile = path.join(tmp.dir, "envs.ts");
    const gradeFile = path.join(tmp.dir, "grade.ts");
    const same = /saved with the same contents: nothing to reload/g;
    let n = 0;
    const noop = async (what: string, save: () => void) => {
      save();
      await occurrences(same, ++n).catch((e: Error) => {
        throw new Error(`${what}: ${e.message}`);
      });
    };
    // touch
    await noop("touch", () => utimesSync(envsFile, new Date(), new Date()));
    // an editor's (or a formatter's) save of the same text
    await noop("same text", () => writeFileSync(envsFile, readFileSync(envsFile)));
    // an editor that writes a copy and renames it over the file, on a file the module imports
    await noop("rename over", () => {
      writeFileSync(`${gradeFile}.swp`, readFileSync(gradeFile));
      renameSync(`${gradeFile}.swp`, gradeFile);
    });
    // git: the file removed and written again with the same bytes
    await noop("replaced", () => {
      const bytes = readFileSync(gradeFile);
      rmSync(gradeFile);
      writeFileSync(gradeFile, bytes);
    });
    expect(server.out()).toMatch(/\[ors-playground\] \.\/grade\.ts saved with the same contents/);
    expect(server.out()).not.toMatch(/\[ors-playground\] (reloaded|could not reload)/);
    // The session opened before all that goes on, on the same code.
    expect(await ors.call("counter", sid, "step", { n: 2 })).toMatchObject({
      ok: true,
      output: { reward: 1 },
    });
    expect(await toolDescription()).toBe("Say the next number.");
  });

  it("reloads on a save of the module: the new description, the old session ended as reloaded", async () => {
    const ors = orsAt(base);
    const old = await ors.episode("counter", "train", 0);
    expect(await ors.call("counter", old, "step", { n: 2 })).toMatchObject({
      ok: true,
      output: { reward: 1 },
    });

    writeFileSync(path.join(tmp.dir, "envs.ts"), envs("Say the number after the last one."));
    await eventually(async () =>
      (await toolDescription()) === "Say the number after the last one." ? true : undefined,
    );
    expect(await ors.call("counter", old, "step", { n: 3 })).toEqual({
      status: 404,
      error: `Session "${old}" ended: its environment was reloaded (its code changed); start a new session`,
    });
    expect(server.out()).toMatch(/reloaded \.\/envs\.ts: now hosting counter/);
  });

  it("reloads on a save of a file the module imports", async () => {
    const ors = orsAt(base);
    writeFileSync(path.join(tmp.dir, "grade.ts"), grade("0.25"));
    const reward = await eventually(async () => {
      const sid = await ors.episode("counter", "train", 1);
      const r = (await ors.call("counter", sid, "step", { n: 6 })) as { output?: { reward: number } };
      return r.output?.reward === 0.25 ? r.output.reward : undefined;
    });
    expect(reward).toBe(0.25);
    expect(server.out()).toMatch(/reloaded \.\/grade\.ts: now hosting counter/);
  });

  it("keeps the previous code while a save does not load, and reloads the fix", async () => {
    const ors = orsAt(base);
    const kept = await ors.episode("counter", "train", 0);
    writeFileSync(path.join(tmp.dir, "envs.ts"), "export default [;\n");
    await eventually(async () =>
      /could not reload after \.\/envs\.ts changed/.test(server.out()) ? true : undefined,
    );
    // Where it failed: esbuild's line, and its column made 1-based.
    expect(server.out()).toMatch(
      /could not reload after \.\/envs\.ts changed: .*\n.*ERROR: Unexpected ";" \(\.\/envs\.ts:1:17\)\n {2}Still serving the previous code; save a fix to reload\./,
    );
    expect(await toolDescription()).toBe("Say the number after the last one.");
    // Nothing was replaced: the session goes on.
    expect(await ors.call("counter", kept, "step", { n: 1 })).toMatchObject({ ok: true });

    // A defineEnvironment error names the environment.
    writeFileSync(path.join(tmp.dir, "envs.ts"), envs("x").replace('splits: ["train"]', "splits: []"));
    await eventually(async () =>
      /environment "counter": has no splits/.test(server.out()) ? true : undefined,
    );
    // At the defineEnvironment call of the author's module (line 4), not inside the SDK.
    expect(server.out()).toMatch(/environment "counter": has no splits \(\.\/envs\.ts:4:\d+\)/);

    writeFileSync(path.join(tmp.dir, "envs.ts"), envs("Fixed."));
    await eventually(async () => ((await toolDescription()) === "Fixed." ? true : undefined));
  });
});

describe("mistakes at startup", () => {
  const serve = (...args: string[]) => run([BIN, "serve", ...args, "--port", "0"], { cwd: tmp.dir });

  it("a missing module", async () => {
    const r = await serve("--env", "./nope.ts");
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `serve: no such environment module: ./nope.ts (looked for ${path.join(tmp.dir, "nope.ts")})\n`,
    );
  });

  it("a module that exports no environment", async () => {
    writeFileSync(path.join(tmp.dir, "empty.ts"), "export const VERSION = 1;\n");
    const r = await serve("--env", "empty.ts");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /^serve: \.\/empty\.ts exports no environments: export environments made with defineEnvironment/,
    );
  });

  it("a defineEnvironment error, naming the environment", async () => {
    writeFileSync(
      path.join(tmp.dir, "notools.ts"),
      envs("x").replace(/tools: \{[\s\S]*?\n {2}\},\n/, "tools: {},\n"),
    );
    const r = await serve("--env", "notools.ts");
    expect(r.code).toBe(1);
    expect(r.err).toBe('serve: could not load ./notools.ts: environment "counter": has no tools\n');
  });

  it("a name clash with a built-in environment, saying which", async () => {
    writeFileSync(path.join(tmp.dir, "clash.ts"), envs("x").replace('name: "counter"', 'name: "math"'));
    const r = await serve("--env", "clash.ts", "--builtins");
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      'serve: ./clash.ts: environment "math" has the name of the built-in environment "math": rename it, or host your module alone (ORS_ENVS_ONLY=1)\n',
    );
  });

  it("a usage mistake: exit 2 with the usage", async () => {
    const r = await serve("--watch");
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^serve: unknown option --watch\n\nusage: serve/);
  });
});
