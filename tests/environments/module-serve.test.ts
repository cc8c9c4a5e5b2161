// An author's module served by `ors-playground serve --env` (a real process, a module in a folder
// outside the repository): saving the module or a file it imports reloads it (the next request uses
// the new code, sessions on the old code end as "reloaded"), a save that does not load keeps the old
// code until a fix, and every mistake at startup is a clear message with exit code 1 (2 for usage).
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, eventually, orsAt, type Proc, run, start, tempDir } from "./helpers";

const PORT = Number(process.env.ORS_TEST_MODULE_PORT ?? 8757);

const grade = (reward: string) => `export const REWARD = ${reward};\n`;
const envs = (
  description: string,
) => `import { defineEnvironment, defineTool, text, z } from "ors-playground/sdk";
import { REWARD } from "./grade.js";

export const counter = defineEnvironment({
  name: "counter",
  splits: ["train"],
  listTasks: () => [{ start: 1 }, { start: 5 }],
  getPrompt: ({ task }) => \`Count from \${task.start}.\`,
  tools: {
    step: defineTool({
      description: ${JSON.stringify(description)},
      input: z.object({ n: z.number().int() }),
      run: ({ n }) => ({ blocks: [text(\`got \${n}\`)], reward: REWARD, finished: false }),
    }),
  },
});
`;

const tmp = tempDir("ors-module-");
let server: Proc;
let base = "";

beforeAll(async () => {
  writeFileSync(path.join(tmp.dir, "grade.ts"), grade("1"));
  writeFileSync(path.join(tmp.dir, "envs.ts"), envs("Say the next number."));
  server = start([BIN, "serve", "--env", "envs.ts", "--port", String(PORT)], { cwd: tmp.dir });
  base = (await server.waitFor(/ORS host listening on (http:\/\/\S+) /))[1]!;
});

afterAll(async () => {
  expect(await server.stop()).toBe(0);
  tmp.remove();
});

const toolDescription = async () =>
  ((await orsAt(base).get("/counter/tools")) as { tools: { description: string }[] }).tools[0]!.description;

describe("hot reload of a served module", () => {
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
    expect(server.out()).toMatch(/Still serving the previous code; save a fix to reload/);
    expect(await toolDescription()).toBe("Say the number after the last one.");
    // Nothing was replaced: the session goes on.
    expect(await ors.call("counter", kept, "step", { n: 1 })).toMatchObject({ ok: true });

    // A defineEnvironment error names the environment.
    writeFileSync(path.join(tmp.dir, "envs.ts"), envs("x").replace('splits: ["train"]', "splits: []"));
    await eventually(async () =>
      /environment "counter": has no splits/.test(server.out()) ? true : undefined,
    );

    writeFileSync(path.join(tmp.dir, "envs.ts"), envs("Fixed."));
    await eventually(async () => ((await toolDescription()) === "Fixed." ? true : undefined));
  });
});

describe("mistakes at startup", () => {
  const serve = (...args: string[]) =>
    run([BIN, "serve", ...args, "--port", String(PORT + 1)], { cwd: tmp.dir });

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
