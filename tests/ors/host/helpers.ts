// Fixtures for the host's protocol tests: small deterministic environments made with the SDK, and
// handlers over them closed after each test (./wire.ts sends them requests).
import { z } from "zod";
import { createOrsHandler, type OrsHandler, type OrsHostOptions } from "@/lib/ors/host";
import { defineEnvironment, defineTool, text } from "@/lib/ors/sdk";

export type QA = { question: string; answer: string };

/** The RunToolOutput of a right answer to `submit` (the fixtures' `qa`, and `math`). */
export const CORRECT = {
  ok: true,
  output: {
    blocks: [{ text: "Correct!", detail: null, type: "text" }],
    metadata: null,
    reward: 1,
    finished: true,
  },
};

/** A promise with its resolve/reject outside, to hold a tool or a setup until the test says so. */
export function gate<T = void>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export const tasks: Record<string, QA[]> = {
  train: Array.from({ length: 10 }, (_, i) => ({ question: `What is ${i} + 1?`, answer: String(i + 1) })),
  test: [{ question: "What is 2 + 2?", answer: "4" }],
};

/** Test controls shared by the fixture environments. */
export const controls = {
  toolGate: gate(),
  setupGate: gate(),
  teardowns: [] as string[],
  aborted: [] as string[],
  reset() {
    this.toolGate = gate();
    this.setupGate = gate();
    this.teardowns = [];
    this.aborted = [];
  },
};

const submit = defineTool<{ answer: string }, QA>({
  description: "Submit an answer",
  input: z.object({ answer: z.string() }),
  run: ({ answer }, { task }) => {
    const ok = answer === task.answer;
    return { blocks: [text(ok ? "Correct!" : "Wrong")], reward: ok ? 1 : 0, finished: true };
  },
});

const counter = defineTool<unknown, QA, { n: number }>({
  description: "Counts calls in this session",
  run: (_input, ctx) => {
    ctx.state.n += 1;
    return { blocks: [text(`count ${ctx.state.n}`)], reward: 0, finished: false };
  },
});

const big = defineTool({
  description: "A large text output: `size` characters, words and runs of spaces",
  input: z.object({ size: z.number().int().default(20_000) }),
  run: ({ size }) => {
    let s = "";
    for (let i = 0; s.length < size; i++) s += i % 9 === 0 ? `w${i}   \n  ` : `w${i} `;
    return { blocks: [text(s.slice(0, size))], reward: 0.5, finished: false, metadata: { size } };
  },
});

const held = defineTool({
  description: "Waits for the test's toolGate, then answers",
  input: z.object({ label: z.string().default("held") }),
  run: async ({ label }, { signal }) => {
    signal.addEventListener("abort", () => controls.aborted.push(label));
    await controls.toolGate.promise;
    return { blocks: [text(`released ${label}`)], reward: 1, finished: false };
  },
});

const boom = defineTool({
  description: "Throws",
  run: () => {
    throw new Error("kaboom");
  },
});

const malformed = defineTool({
  description: "Returns a result that is not a ToolOutput",
  run: () => ({ blocks: [{ type: "video", url: "x" }] }) as never,
});

const peek = defineTool({
  description: "Shows the secrets it got",
  run: (_input, { secrets }) => ({ blocks: [text(JSON.stringify(secrets))] }),
});

export const qa = defineEnvironment<QA, { n: number }>({
  name: "qa",
  description: "Question/answer fixture",
  splits: ["train", "test"],
  listTasks: (split) => tasks[split]!,
  getPrompt: ({ task }) => task.question,
  createState: () => ({ n: 0 }),
  tools: { submit, counter, big, held, boom, malformed, peek },
  teardown: ({ sessionId }) => {
    controls.teardowns.push(sessionId);
  },
});

export const slowSetup = defineEnvironment({
  name: "slowsetup",
  splits: ["train"],
  listTasks: () => [{ id: 1 }],
  getPrompt: () => [text("ready")],
  setup: async () => {
    await controls.setupGate.promise;
  },
  teardown: ({ sessionId }) => {
    controls.teardowns.push(sessionId);
  },
  tools: { counter: defineTool({ description: "noop", run: () => ({ blocks: [text("ok")] }) }) },
});

export const brokenSetup = defineEnvironment({
  name: "broken",
  splits: ["train"],
  listTasks: () => [{ id: 1 }],
  getPrompt: () => "never",
  setup: () => {
    throw new Error("database unreachable");
  },
  tools: { noop: defineTool({ description: "noop", run: () => ({ blocks: [] }) }) },
});

export const indexed = defineEnvironment<{ i: number }>({
  name: "indexed",
  splits: [{ name: "huge", type: "train" }],
  numTasks: () => 100_000,
  getTask: (_split, i) => ({ i }),
  getPrompt: ({ task }) => `task ${task.i}`,
  taskTools: ({ task }) => ({
    hint: defineTool({
      description: `Hint for task ${task.i}`,
      run: () => ({ blocks: [text(`hint ${task.i}`)] }),
    }),
  }),
  tools: { noop: defineTool({ description: "noop", run: () => ({ blocks: [text("noop")] }) }) },
});

export const throwsInList = defineEnvironment({
  name: "throwsinlist",
  splits: ["train"],
  listTasks: () => {
    throw new Error("secret-token-123 leaked in a stack");
  },
  getPrompt: () => "x",
  tools: { noop: defineTool({ description: "noop", run: () => ({ blocks: [] }) }) },
});

export const allEnvs = [qa, slowSetup, brokenSetup, indexed, throwsInList];

const handlers: OrsHandler[] = [];

/** A handler over the fixture environments; closed by `closeHandlers()` (call it in afterEach). */
export function makeHandler(options: Partial<OrsHostOptions> = {}): OrsHandler {
  const h = createOrsHandler(allEnvs, { log: () => {}, ...options });
  handlers.push(h);
  return h;
}

export async function closeHandlers(): Promise<void> {
  await Promise.all(handlers.splice(0).map((h) => h.close()));
  controls.toolGate.resolve();
  controls.setupGate.resolve();
  controls.reset();
}
