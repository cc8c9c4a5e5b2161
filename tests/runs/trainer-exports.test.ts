// What a trainer takes from a run (lib/runs/run-export.ts), on a real run of the built-in host: the
// tasks' weights as JSONL {task, p, signal}, the verifiers library's results JSONL (the columns its
// vf-eval writes), the prompts as Parquet read back with a Parquet reader (hyparquet), and the tool
// specs in the OpenAI, Anthropic and Gemini shapes — from the run and from the relay.
import { parquetReadObjects } from "hyparquet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orsPathFromUrl } from "@/lib/relay/relay";
import { runExport, runTools } from "@/lib/runs/run-export";
import { groupSignal } from "@/lib/runs/signal";
import { FIXTURES, type TestPlayground, testPlayground } from "./helpers";

let t: TestPlayground;
let runId: string;

beforeAll(async () => {
  t = testPlayground();
  // The oracle misses the tasks whose index is a multiple of 5; random inputs make the rest vary.
  const run = await t.pg.runs.start({
    server: "local",
    env: "math",
    split: "test",
    tasks: "0-5",
    repeats: 3,
    policy: { kind: "script", module: `${FIXTURES}/math-oracle.ts` },
  });
  runId = run.id;
  await t.pg.runs.settled(run.id);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const exportOf = (query: string) =>
  runExport(t.pg.store, runId, new URL(`http://x/api/runs/${runId}/export?${query}`));
const lines = async (r: Response) =>
  (await r.text())
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("a run's exports for trainers", () => {
  it("weights its tasks by their learning signal: {task, p, signal}", async () => {
    const w = await lines(await exportOf("format=task-weights"));
    expect(w).toEqual([0, 1, 2, 3, 4, 5].map((task) => ({ task, p: task % 5 === 0 ? 0 : 1, signal: 0 })));
    // G given.
    const g = await lines(await exportOf("format=task-weights&group=8"));
    expect(g[0]).toEqual({ task: 0, p: 0, signal: groupSignal(0, 8) });
    const bad = await exportOf("format=task-weights&group=1").catch((e) => e);
    expect(bad).toMatchObject({
      status: 400,
      detail: expect.stringMatching(/group: expected a whole number/),
    });
  });

  it("writes the verifiers library's results JSONL", async () => {
    const rows = await lines(await exportOf("format=verifiers"));
    expect(rows).toHaveLength(18);
    for (const r of rows) {
      // The columns vf-eval's results.jsonl has (verifiers/utils/eval_utils.py prepare_dataset).
      expect(Object.keys(r).sort()).toEqual(
        [
          "completion",
          "example_id",
          "generation_ms",
          "id",
          "info",
          "prompt",
          "reward",
          "scoring_ms",
          "task",
          "total_ms",
        ].sort(),
      );
      expect(r.prompt).toEqual([{ role: "user", content: expect.stringMatching(/./) }]);
      const completion = r.completion as { role: string }[];
      expect(completion.map((m) => m.role)).toEqual(["assistant", "tool"]);
      expect(r.task).toBe("math");
      expect(r.reward).toBe((r.id as number) % 5 === 0 ? 0 : 1);
      expect(r.info).toMatchObject({ run_id: runId, split: "test", end_reason: "finished" });
    }
  });

  it("writes its prompts as Parquet that a Parquet reader reads as veRL does", async () => {
    const res = await exportOf("format=parquet");
    expect(res.headers.get("content-type")).toBe("application/vnd.apache.parquet");
    const rows = await parquetReadObjects({ file: await res.arrayBuffer() });
    expect(rows).toHaveLength(6);
    const first = rows[0] as Record<string, unknown>;
    expect(Object.keys(first)).toEqual(["data_source", "prompt", "reward_model", "extra_info"]);
    expect(first).toMatchObject({
      data_source: "ors/local/math",
      prompt: [{ role: "user", content: expect.stringMatching(/./) }],
      reward_model: { style: "ors", ground_truth: "" },
      extra_info: { server: "local", env: "math", split: "test", run_id: runId, p: 0, signal: 0 },
    });
    expect(rows.map((r) => Number((r as { extra_info: { index: bigint } }).extra_info.index))).toEqual([
      0, 1, 2, 3, 4, 5,
    ]);
  });

  it("answers the run's tool specs in each provider's shape", async () => {
    const specs = async (format: string) =>
      (await (
        await runTools(t.pg.store, runId, new URL(`http://x/api/runs/${runId}/tools?format=${format}`))
      ).json()) as {
        tools: Record<string, unknown>[];
      };
    const openai = await specs("openai");
    expect(openai.tools[0]).toMatchObject({
      type: "function",
      function: { name: "submit", description: expect.any(String), parameters: { type: "object" } },
    });
    const anthropic = await specs("anthropic");
    expect(anthropic.tools[0]).toEqual({
      name: "submit",
      description: expect.any(String),
      input_schema: expect.objectContaining({ type: "object", properties: expect.any(Object) }),
    });
    const gemini = await specs("gemini");
    expect(gemini.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: "submit",
            description: expect.any(String),
            parameters: expect.objectContaining({ type: "object" }),
          },
        ],
      },
    ]);
    expect((await runTools(t.pg.store, runId, new URL("http://x/?format=xml"))).status).toBe(400);
  });

  it("the relay answers a server's tools in a provider's shape too", async () => {
    const get = async (q: string) => {
      const req = new Request(`http://playground.internal/api/servers/local/math/tools${q}`);
      return t.pg.relay.handle(req, "local", orsPathFromUrl(req.url, "local"));
    };
    const plain = (await (await get("")).json()) as { tools: { name: string }[] };
    expect(plain.tools.map((x) => x.name)).toEqual(["submit"]);
    const anthropic = (await (await get("?format=anthropic")).json()) as { format: string; tools: unknown[] };
    expect(anthropic).toEqual({
      format: "anthropic",
      tools: [
        {
          name: "submit",
          description: expect.any(String),
          input_schema: expect.objectContaining({ type: "object" }),
        },
      ],
    });
    const bad = await get("?format=cobol");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { detail: string }).detail).toMatch(
      /format: expected one of openai, anthropic, gemini/,
    );
  });
});
