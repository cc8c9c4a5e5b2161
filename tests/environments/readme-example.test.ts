// The example module for environment authors, run for real: its envs.ts, copied out of
// docs/authoring.md into a folder outside the repository, imports `ors-playground/sdk` and is served
// by the `ors-playground` bin as the doc's command says (`serve --env ./envs.ts`, on a free port
// here); an ORS client then plays episodes on it. (From the packed tarball: tests/cli/pack.test.ts.)
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authoringExample, BIN, exampleCommands, orsAt, type Proc, start, tempDir } from "./helpers";

const tmp = tempDir("ors-readme-");
let server: Proc;
let base = "";

beforeAll(async () => {
  const code = authoringExample("envs.ts");
  expect(code).toContain('from "ors-playground/sdk"');
  writeFileSync(path.join(tmp.dir, "envs.ts"), code);
  // The doc's command, on a free port.
  expect(exampleCommands("run.sh")).toContainEqual(
    expect.stringMatching(/^npx ors-playground serve --env \.\/envs\.ts --port 8080 /),
  );
  server = start([BIN, "serve", "--env", "./envs.ts", "--port", "0"], { cwd: tmp.dir });
  base = (await server.waitFor(/ORS host listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
});

afterAll(async () => {
  expect(await server.stop()).toBe(0);
  tmp.remove();
});

describe("the example environment module of docs/authoring.md", () => {
  it("is served alone, under its name, with its tool's schema", async () => {
    const ors = orsAt(base);
    expect(server.out()).toContain(`ORS base URL for clients: ${base}`);
    expect(server.out()).toMatch(/From \.\/envs\.ts: capitals \(reloaded when you save it/);
    expect(await ors.get("/list_environments")).toEqual(["capitals"]);
    expect(await ors.get("/capitals/splits")).toEqual([
      { name: "train", type: "train" },
      { name: "test", type: "test" },
    ]);
    const { tools } = (await ors.get("/capitals/tools")) as {
      tools: { name: string; input_schema: unknown }[];
    };
    expect(tools).toEqual([
      {
        name: "answer",
        description: "Give your final answer. Reward 1 if it is right, 0 if not.",
        input_schema: expect.objectContaining({
          type: "object",
          properties: { answer: { type: "string", description: "Your answer, e.g. Paris" } },
          required: ["answer"],
        }),
      },
    ]);
  });

  it("plays episodes: prompt, a right answer rewarded 1, a wrong one 0", async () => {
    const ors = orsAt(base);
    const sid = await ors.episode("capitals", "train", 1);
    expect(await ors.get("/capitals/prompt", sid)).toEqual([
      { type: "text", text: "What is the capital of Japan?", detail: null },
    ]);
    expect(await ors.call("capitals", sid, "answer", { answer: " tokyo " })).toMatchObject({
      ok: true,
      output: { blocks: [{ type: "text", text: "Right!" }], reward: 1, finished: true },
    });
    const other = await ors.episode("capitals", "test", 0);
    expect(await ors.call("capitals", other, "answer", { answer: "Mombasa" })).toMatchObject({
      ok: true,
      output: { blocks: [{ text: "No, it is Nairobi." }], reward: 0, finished: true },
    });
  });
});
