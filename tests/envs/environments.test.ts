import Ajv from "ajv";
import { describe, expect, it, vi } from "vitest";
import { BIGOUTPUT_DEFAULT_SIZE } from "@/envs/bigoutput";
import { BIGSPLIT_SIZE, bigsplitTask } from "@/envs/bigsplit";
import { BROKENSETUP_MESSAGE } from "@/envs/brokensetup";
import { guessReward } from "@/envs/guess";
import {
  bigoutput,
  bigsplit,
  brokensetup,
  builtinEnvironments,
  dice,
  guess,
  math,
  paint,
  secret,
  slow,
  tasktools,
} from "@/envs/index";
import { answersMatch, generateMathTasks, type MathTask } from "@/envs/math";
import { openDirectSession, resultText } from "@/envs/shared/run-tool";
import type { ToolResult } from "@/lib/ors/sdk";

async function ok(p: ReturnType<Awaited<ReturnType<typeof openDirectSession>>["call"]>): Promise<ToolResult> {
  const r = await p;
  if (!r.ok) throw new Error(`expected a result, got error: ${r.error}`);
  return r.result;
}

/** Evaluates the generated arithmetic questions independently of the generator. */
function solve(question: string): number {
  let m = question.match(/^What is (\d+) ([-+*/]) (\d+)\?$/);
  if (m) {
    const [a, op, b] = [Number(m[1]), m[2], Number(m[3])];
    return op === "+" ? a + b : op === "-" ? a - b : op === "*" ? a * b : a / b;
  }
  m = question.match(/^If x \+ (\d+) = (\d+), what is x\?$/);
  if (m) return Number(m[2]) - Number(m[1]);
  throw new Error(`unrecognized question: ${question}`);
}

describe("builtin environments", () => {
  it("have unique names, descriptions, and described tools", () => {
    const names = builtinEnvironments.map((e) => e.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names[0]).toBe("math");
    for (const env of builtinEnvironments) {
      expect(env.description.length, env.name).toBeGreaterThan(20);
      for (const [name, tool] of env.tools)
        expect(tool.description.length, `${env.name}/${name}`).toBeGreaterThan(10);
    }
  });

  it("serve tool input schemas that are valid draft-07 JSON Schema", async () => {
    const ajv = new Ajv({ strict: false, formats: { email: /^[^@\s]+@[^@\s]+$/ } });
    const meta = ajv.getSchema("http://json-schema.org/draft-07/schema#");
    expect(meta).toBeDefined();
    for (const env of builtinEnvironments) {
      const tools = new Map(env.tools);
      // Task-specific tools of every task count too.
      if (env.definition.taskTools) {
        for (const task of await env.listTasks(env.splits[0]!.name)) {
          const ctx = { sessionId: "s", task, secrets: {}, state: {} };
          for (const [k, v] of Object.entries(env.definition.taskTools(ctx))) tools.set(k, v);
        }
      }
      for (const [name, tool] of tools) {
        if (tool.inputSchema === null) continue;
        expect(meta!(tool.inputSchema), `${env.name}/${name}: ${ajv.errorsText(meta!.errors)}`).toBe(true);
        expect(tool.inputSchema.type, `${env.name}/${name}`).toBe("object");
        expect(() => ajv.compile(tool.inputSchema!), `${env.name}/${name}`).not.toThrow();
        expect(JSON.stringify(tool.inputSchema)).not.toContain("$schema");
      }
    }
  });
});

describe("math", () => {
  it("has 800 train and 200 test tasks, the same on every run", async () => {
    expect(await math.numTasks("train")).toBe(800);
    expect(await math.numTasks("test")).toBe(200);
    expect(generateMathTasks("train")).toEqual(generateMathTasks("train"));
    expect(generateMathTasks("train")[0]).not.toEqual(generateMathTasks("test")[0]);
  });

  it("has correct answers for every task", async () => {
    for (const split of ["train", "test"]) {
      for (const t of (await math.listTasks(split)) as MathTask[]) {
        expect(typeof t.answer).toBe("string");
        expect(String(solve(t.question)), t.question).toBe(t.answer);
      }
    }
  });

  it("rewards a correct answer with 1 and a wrong one with 0, finishing either way", async () => {
    const task = (await math.getTask("train", 3)) as MathTask;
    const s = await openDirectSession(math, task);
    expect(await s.prompt()).toBe(task.question);
    const right = await ok(s.call("submit", { answer: ` ${task.answer} ` }));
    expect(right).toMatchObject({ reward: 1, finished: true });
    expect(resultText(right)).toBe("Correct!");
    const wrong = await ok(s.call("submit", { answer: "nope" }));
    expect(wrong).toMatchObject({ reward: 0, finished: true });
    expect(resultText(wrong)).toContain("Incorrect");
  });

  it("compares numbers leniently", () => {
    expect(answersMatch("7.0", "7")).toBe(true);
    expect(answersMatch("", "0")).toBe(false);
    expect(answersMatch("8", "7")).toBe(false);
  });

  it("names the field in validation errors", async () => {
    const s = await openDirectSession(math, { question: "q", answer: "1" });
    const r = await s.call("submit", { answer: 4 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/^Invalid input: answer: /);
    const missing = await s.call("submit", {});
    if (!missing.ok) expect(missing.error).toContain("answer");
    else throw new Error("expected a validation error");
  });
});

describe("guess", () => {
  it("reaches finished by bisection, with a reward by number of steps", async () => {
    const s = await openDirectSession(guess, { split: "train", index: 5 });
    const target = s.task.target as number;
    let low = 1;
    let high = 100;
    let last: ToolResult | undefined;
    for (let i = 0; i < 10; i++) {
      const n = Math.floor((low + high) / 2);
      last = await ok(s.call("guess", { number: n }));
      const answer = resultText(last);
      if (last.finished) break;
      if (answer === "higher") low = n + 1;
      else if (answer === "lower") high = n - 1;
      else throw new Error(`unexpected answer ${answer}`);
    }
    expect(last?.finished).toBe(true);
    expect(resultText(last!)).toMatch(/^correct/);
    const steps = s.state.steps as number;
    expect(steps).toBeLessThanOrEqual(7);
    expect(last!.reward).toBe(guessReward(steps));
    expect(target).toBeGreaterThanOrEqual(1);
  });

  it("rewards 1 for a first-guess hit and never below 0", () => {
    expect(guessReward(1)).toBe(1);
    expect(guessReward(2)).toBe(0.9);
    expect(guessReward(30)).toBe(0);
  });

  it("gives a range hint without input that holds the target", async () => {
    expect(guess.tools.get("hint")!.inputSchema).toBeNull();
    const s = await openDirectSession(guess, { target: 42 });
    const r = await ok(s.call("hint"));
    const [, lo, hi] = resultText(r)
      .match(/between (\d+) and (\d+)/)!
      .map(Number);
    expect(lo).toBeLessThanOrEqual(42);
    expect(hi).toBeGreaterThanOrEqual(42);
    expect(hi! - lo!).toBeLessThan(20);
    expect(s.state.steps).toBe(0);
  });

  it("rejects out-of-range and non-integer guesses naming the field", async () => {
    const s = await openDirectSession(guess, { target: 42 });
    for (const number of [0, 101, 4.5, "7"]) {
      const r = await s.call("guess", { number });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toContain("number:");
    }
  });
});

describe("tasktools", () => {
  it("serves only the shared tool in /tools and task-specific tools per task", async () => {
    expect([...tasktools.tools.keys()]).toEqual(["look"]);
    const a = await openDirectSession(tasktools, { split: "train", index: 0 });
    const b = await openDirectSession(tasktools, { split: "train", index: 1 });
    expect(a.toolNames()).toEqual(["look", `open_door_${a.task.door}`, "lookup"]);
    expect(b.toolNames()).toEqual(["look", `open_door_${b.task.door}`]);
    expect(a.task.door).not.toBe(b.task.door);
  });

  it("opens the door with the code found by lookup", async () => {
    const s = await openDirectSession(tasktools, { split: "train", index: 2 });
    const code = resultText(await ok(s.call("lookup"))).match(/(\d{4})/)![1];
    const wrong = await ok(s.call(`open_door_${s.task.door}`, { code: "0000" }));
    expect(wrong).toMatchObject({ reward: 0, finished: false });
    const right = await ok(s.call(`open_door_${s.task.door}`, { code }));
    expect(right).toMatchObject({ reward: 1, finished: true });
  });
});

describe("bigoutput", () => {
  it("returns more than 100 KB when called with {}", async () => {
    const s = await openDirectSession(bigoutput, { split: "train", index: 0 });
    const r = await ok(s.call("dump", {}));
    const t = resultText(r);
    expect(t.length).toBe(BIGOUTPUT_DEFAULT_SIZE);
    expect(Buffer.byteLength(JSON.stringify(r))).toBeGreaterThan(100 * 1024);
    expect(t).toContain(" ");
    expect(t).toContain("\n");
    expect(t).toContain("🙂");
  });

  it("returns exactly the requested size, up to a megabyte, never ending in half a surrogate pair", async () => {
    const s = await openDirectSession(bigoutput, { id: 0 });
    for (const size of [0, 1, 4096, 1_048_576]) {
      const t = resultText(await ok(s.call("dump", { size })));
      expect(t.length).toBe(size);
      if (size) expect(t.charCodeAt(size - 1) & 0xfc00).not.toBe(0xd800);
    }
    for (let size = 1900; size < 2100; size++) {
      const t = resultText(await ok(s.call("dump", { size, lineWidth: 40 })));
      expect(t.charCodeAt(size - 1) & 0xfc00, `size ${size}`).not.toBe(0xd800);
    }
    const ascii = resultText(await ok(s.call("dump", { size: 100_000, ascii: true })));
    expect(ascii).toHaveLength(100_000);
    expect([...ascii].every((c) => c.charCodeAt(0) < 128)).toBe(true);
    const tooBig = await s.call("dump", { size: 10 ** 9 });
    expect(tooBig.ok).toBe(false);
    if (!tooBig.ok) expect(tooBig.error).toContain("size:");
  });

  it("pictures: count noisy PNGs of about kib KiB each, distinct, that decode as PNG", async () => {
    const s = await openDirectSession(bigoutput, { id: 0 });
    const r = await ok(s.call("pictures", { count: 3, kib: 64 }));
    const images = r.blocks.filter((b) => b.type === "image");
    expect(images).toHaveLength(3);
    const bytes = images.map((b) => Buffer.from(b.type === "image" ? b.data : "", "base64"));
    for (const png of bytes) {
      expect(png.subarray(1, 4).toString("latin1")).toBe("PNG");
      expect(png.length).toBeGreaterThan(60 * 1024);
      expect(png.length).toBeLessThan(70 * 1024);
    }
    expect(new Set(bytes.map((b) => b.toString("base64"))).size).toBe(3);
    expect((await s.call("pictures", {})).ok).toBe(false); // count is required
  });
});

describe("slow", () => {
  it("waits the given time and answers", async () => {
    const s = await openDirectSession(slow, { id: 0 });
    const r = await ok(s.call("wait", { seconds: 0.05 }));
    expect(resultText(r)).toMatch(/^Waited 0\.\d s\.$/);
    expect((await ok(s.call("fast", { finish: true }))).finished).toBe(true);
    expect(slow.tools.get("wait")!.inputSchema).toMatchObject({
      properties: { seconds: { default: 25, maximum: 120 } },
    });
  });

  it("stops waiting when the call is aborted", async () => {
    const ac = new AbortController();
    const s = await openDirectSession(slow, { id: 0 }, { signal: ac.signal });
    const started = Date.now();
    const p = s.call("wait", { seconds: 60 });
    setTimeout(() => ac.abort(new Error("call aborted")), 20);
    await expect(p).rejects.toThrow("call aborted");
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe("secret", () => {
  it("reports presence and length of API_TOKEN, never its value", async () => {
    const value = "sk-very-secret-value-123";
    const s = await openDirectSession(secret, { id: 0 }, { secrets: { API_TOKEN: value } });
    const r = await ok(s.call("whoami"));
    expect(resultText(r)).toContain(`(${value.length} characters)`);
    expect(JSON.stringify(r)).not.toContain(value);
    expect(r.reward).toBe(1);
    const none = await openDirectSession(secret, { id: 0 });
    const r2 = await ok(none.call("whoami"));
    expect(resultText(r2)).toContain("missing");
    expect(r2.reward).toBe(0);
  });
});

describe("brokensetup", () => {
  it("fails setup with a clear message", async () => {
    const s = await openDirectSession(brokensetup, { id: 0 });
    await expect(s.setup()).rejects.toThrow(BROKENSETUP_MESSAGE);
  });
});

describe("bigsplit", () => {
  it("serves 100,000 train tasks by index without materializing the split", async () => {
    expect(bigsplit.definition.listTasks).toBeUndefined();
    const spy = vi.spyOn(bigsplit.definition, "getTask");
    try {
      expect(await bigsplit.numTasks("train")).toBe(BIGSPLIT_SIZE);
      expect(spy).not.toHaveBeenCalled();
      const last = await bigsplit.getTask("train", BIGSPLIT_SIZE - 1);
      expect(last).toEqual(bigsplitTask("train", BIGSPLIT_SIZE - 1));
      expect(last.id).toBe(BIGSPLIT_SIZE - 1);
      expect(spy).toHaveBeenCalledTimes(1);
      const range = await bigsplit.getTaskRange("train", 99_990, 100_000);
      expect(range.map((t) => t.id)).toEqual(Array.from({ length: 10 }, (_, i) => 99_990 + i));
      expect(spy).toHaveBeenCalledTimes(11);
    } finally {
      spy.mockRestore();
    }
    await expect(bigsplit.getTask("train", BIGSPLIT_SIZE)).rejects.toThrow(RangeError);
    await expect(bigsplit.getTask("train", -1)).rejects.toThrow(RangeError);
  });

  it("derives the same correct task from an index every time", async () => {
    for (const i of [0, 1, 12_345, 99_999]) {
      const t = bigsplitTask("train", i);
      expect(t).toEqual(bigsplitTask("train", i));
      const [, a, b] = t.question.match(/what is (\d+) \+ (\d+)\?/)!.map(Number);
      expect(String(a! + b!)).toBe(t.answer);
    }
    const s = await openDirectSession(bigsplit, { split: "train", index: 777 });
    expect(await ok(s.call("submit", { answer: s.task.answer as string }))).toMatchObject({ reward: 1 });
  });
});

describe("dice", () => {
  it("rolls at random while echo is deterministic", async () => {
    const s = await openDirectSession(dice, { id: 0 });
    const rolls = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const r = await ok(s.call("roll", { sides: 1000 }));
      expect(r.reward).toBeGreaterThanOrEqual(0);
      expect(r.reward).toBeLessThanOrEqual(1);
      rolls.add(JSON.stringify([resultText(r), r.reward]));
    }
    expect(rolls.size).toBeGreaterThan(1);
    const e1 = await ok(s.call("echo", { text: "hi" }));
    const e2 = await ok(s.call("echo", { text: "hi" }));
    expect(e1).toEqual(e2);
    expect(await ok(s.call("stop"))).toMatchObject({ finished: true });
    expect(s.state.rolls).toBe(20);
  });
});

describe("paint", () => {
  it("prompts with text and a PNG and rewards the right shape", async () => {
    const s = await openDirectSession(paint, { split: "train", index: 4 });
    const prompt = (await s.prompt()) as Array<{ type: string }>;
    expect(prompt.map((b) => b.type)).toEqual(["text", "image"]);
    const target = s.task.shape as string;
    const other = ["circle", "square", "triangle"].find((x) => x !== target)!;
    const miss = await ok(s.call("draw", { shape: other, color: "#00ff00", size: 32 }));
    expect(miss).toMatchObject({ reward: 0, finished: false });
    const hit = await ok(s.call("draw", { shape: target, color: s.task.color }));
    expect(hit).toMatchObject({ reward: 1, finished: true });
    expect(hit.blocks[0]).toMatchObject({ type: "image", mimeType: "image/png" });
  });

  it("rejects a bad colour naming the field", async () => {
    const s = await openDirectSession(paint, { split: "train", index: 0 });
    const r = await s.call("draw", { shape: "circle", color: "red" });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain("color:");
    const r2 = await s.call("draw", { shape: "hexagon", color: "#fff" });
    if (!r2.ok) expect(r2.error).toContain("shape:");
    else throw new Error("expected an error");
  });
});
