// A stub's environments (docs/ci.md "A stand-in server"): the recorded environments rebuilt with the
// SDK — their tools with the recorded input schemas, splits, task specs and prompts (from the
// surface where the record has one, else what the trajectories show) — each tool answering from
// the record (./match.ts). Our host serves them, so the stub speaks ORS as strictly as it does.
// Isomorphic.
import { jsonHash, type SurfaceEnvironment, type SurfaceTool } from "@/lib/conformance/diff/surface";
import type { Block, JsonObject } from "@/lib/ors/protocol";
import {
  type AnyEnvironment,
  type AnyTool,
  defineEnvironment,
  defineTool,
  type SplitType,
  type ToolContext,
  type ToolResult,
  text,
} from "@/lib/ors/sdk";
import { stableStringify } from "@/lib/trajectory/diff";
import type { Trajectory } from "@/lib/trajectory/schema";
import { answerCall, type RecordedEpisode, replayableSteps, type StubCall } from "./match";
import type { StubRecord } from "./record";

export interface StubOptions {
  /** Off the record, answer the nearest recorded result (saying so) instead of a tool error. */
  lenient?: boolean;
  /** Each call off the record, and each environment left out, in a line. */
  log?: (line: string) => void;
}

interface StubState {
  [key: string]: unknown;
  key: string;
  calls: StubCall[];
}

const SPLIT_TYPES = new Set(["train", "validation", "test"]);

/** A task's key: `split/index`, or the hash of a hand-written task spec. */
function taskKey(t: Trajectory): string | null {
  if (!t.task) return null;
  return "task_spec" in t.task ? `spec:${jsonHash(t.task.task_spec)}` : `${t.task.split}/${t.task.index}`;
}

const label = (key: string) => (key.startsWith("spec:") ? `task_spec ${key.slice(5)}` : key);

/** A tool answering from the record, served with the recorded spec (its schema as recorded). */
function stubTool(
  spec: SurfaceTool,
  run: (input: unknown, ctx: ToolContext<JsonObject, StubState>) => Promise<ToolResult>,
): AnyTool {
  if (spec.input_schema) {
    try {
      return defineTool({ description: spec.description, inputSchema: spec.input_schema, run });
    } catch {
      // A schema AJV cannot compile: served as recorded, every input taken.
      return {
        kind: "ors-tool",
        description: spec.description,
        inputSchema: spec.input_schema,
        parse: (raw) => ({ ok: true, value: raw ?? {} }),
        run: (input, ctx) => run(input, ctx),
      };
    }
  }
  return defineTool({ description: spec.description, run });
}

/** The env-level tools when no surface says: those every episode had (else all seen), in first-seen order. */
function recordedTools(trajs: readonly Trajectory[]): SurfaceTool[] {
  const lists = trajs.filter((t) => t.tools?.length).map((t) => t.tools!);
  const first = new Map<string, SurfaceTool>();
  for (const list of lists)
    for (const t of list)
      if (!first.has(t.name))
        first.set(t.name, { name: t.name, description: t.description, input_schema: t.input_schema ?? null });
  for (const t of trajs)
    for (const s of t.steps)
      if (!first.has(s.tool)) first.set(s.tool, { name: s.tool, description: "", input_schema: null });
  const everywhere = [...first.values()].filter((t) => lists.every((l) => l.some((x) => x.name === t.name)));
  return everywhere.length ? everywhere : [...first.values()];
}

interface SplitPlan {
  name: string;
  type: SplitType;
  count: number;
  specs: JsonObject[];
}

function splitsOf(s: SurfaceEnvironment | undefined, trajs: readonly Trajectory[]): SplitPlan[] {
  if (s?.splits.length)
    return s.splits.map((x) => ({
      name: x.name,
      type: (SPLIT_TYPES.has(x.type) ? x.type : "validation") as SplitType,
      count: x.count,
      specs: x.tasks.map((t) => t.spec),
    }));
  const counts = new Map<string, number>();
  for (const t of trajs)
    if (t.task && "split" in t.task)
      counts.set(t.task.split, Math.max(counts.get(t.task.split) ?? 0, t.task.index + 1));
  return [...counts].map(([name, count]) => ({
    name,
    type: (SPLIT_TYPES.has(name) ? name : "train") as SplitType,
    count,
    specs: [],
  }));
}

/** One environment of the record, or the reason it cannot be served. */
function stubEnvironment(
  name: string,
  s: SurfaceEnvironment | undefined,
  trajs: readonly Trajectory[],
  o: StubOptions,
): AnyEnvironment | string {
  const envTools = s?.tools.length ? s.tools : recordedTools(trajs);
  if (!envTools.length) return `${name}: no tool was recorded`;
  const splits = splitsOf(s, trajs);
  if (!splits.length) return `${name}: no split was recorded`;
  const episodes = new Map<string, RecordedEpisode[]>();
  const prompts = new Map<string, Block[]>();
  const taskToolSpecs = new Map<string, SurfaceTool[]>();
  const envNames = new Set(envTools.map((t) => t.name));
  for (const p of s?.prompts ?? []) {
    const key = `${p.split}/${p.index}`;
    if (p.blocks) prompts.set(key, p.blocks);
    if (p.tools)
      taskToolSpecs.set(
        key,
        p.tools.filter((t) => !envNames.has(t.name)),
      );
  }
  for (const t of trajs) {
    const key = taskKey(t);
    if (!key) continue;
    episodes.set(key, [...(episodes.get(key) ?? []), { id: t.id, steps: replayableSteps(t.steps) }]);
    if (t.prompt && !prompts.has(key)) prompts.set(key, t.prompt);
    const own = (t.tools ?? []).filter((x) => !envNames.has(x.name));
    if (own.length && !taskToolSpecs.has(key))
      taskToolSpecs.set(
        key,
        own.map((x) => ({ name: x.name, description: x.description, input_schema: x.input_schema ?? null })),
      );
  }
  const keys = new WeakMap<object, string>();
  const toolsByKey = new Map<string, Record<string, AnyTool>>();
  const envToolMap: Record<string, AnyTool> = {};
  const parseWith = (key: string) => (recorded: JsonObject, given: JsonObject, tool: string) => {
    const t = envToolMap[tool] ?? toolsByKey.get(key)?.[tool];
    const parsed = t ? t.parse(structuredClone(recorded)) : { ok: true as const, value: recorded };
    return stableStringify(parsed.ok ? parsed.value : recorded) === stableStringify(given);
  };
  const answer =
    (tool: string) =>
    async (input: unknown, ctx: ToolContext<JsonObject, StubState>): Promise<ToolResult> => {
      const st = ctx.state;
      const call = { tool, input: (input ?? {}) as JsonObject };
      const a = answerCall(episodes.get(st.key) ?? [], st.calls, call, parseWith(st.key), {
        lenient: !!o.lenient,
        task: label(st.key),
      });
      st.calls.push(call);
      if (a.kind === "off") {
        o.log?.(`${name}: ${a.message}`);
        throw new Error(a.message);
      }
      if (a.kind === "nearest") o.log?.(`${name}: ${a.note}`);
      const step = a.step;
      if (!step.ok)
        throw new Error(
          a.kind === "nearest" ? `${step.error} (${a.note})` : (step.error ?? "the recorded call failed"),
        );
      const metadata = a.kind === "nearest" ? { ...(step.metadata ?? {}), stub: a.note } : step.metadata;
      return { blocks: step.blocks, reward: step.reward, finished: step.finished, metadata };
    };
  for (const t of envTools) envToolMap[t.name] = stubTool(t, answer(t.name));
  const bySplit = new Map(splits.map((x) => [x.name, x]));
  return defineEnvironment<JsonObject, StubState>({
    name,
    description: `A stub of ${name}: ${trajs.length} recorded episodes`,
    splits: splits.map((x) => ({ name: x.name, type: x.type })),
    numTasks: (split) => bySplit.get(split)?.count ?? 0,
    getTask: (split, index) => {
      // A fresh object a session keeps: the stub knows its task by it.
      const spec = bySplit.get(split)?.specs[index];
      const task = spec ? { ...spec } : { stub: `task ${index} of ${split} was not recorded` };
      keys.set(task, `${split}/${index}`);
      return task;
    },
    createState: ({ task }) => ({ key: keys.get(task) ?? `spec:${jsonHash(task)}`, calls: [] }),
    getPrompt: ({ state }) =>
      prompts.get(state.key) ?? [text(`(the stub has no prompt recorded for task ${label(state.key)})`)],
    tools: envToolMap,
    taskTools: ({ state }) => {
      let tools = toolsByKey.get(state.key);
      if (!tools) {
        tools = {};
        for (const t of taskToolSpecs.get(state.key) ?? []) tools[t.name] = stubTool(t, answer(t.name));
        toolsByKey.set(state.key, tools);
      }
      return tools;
    },
  });
}

/** The environments of a record, and those that cannot be served (with why). */
export function stubEnvironments(
  record: StubRecord,
  o: StubOptions = {},
): { environments: AnyEnvironment[]; skipped: string[] } {
  const byEnv = new Map<string, Trajectory[]>();
  for (const s of record.surface?.environments ?? []) byEnv.set(s.name, []);
  for (const t of record.trajectories) if (t.env) byEnv.set(t.env, [...(byEnv.get(t.env) ?? []), t]);
  const environments: AnyEnvironment[] = [];
  const skipped: string[] = [];
  for (const [name, trajs] of byEnv) {
    const built = stubEnvironment(
      name,
      record.surface?.environments.find((e) => e.name === name),
      trajs,
      o,
    );
    if (typeof built === "string") skipped.push(built);
    else environments.push(built);
  }
  return { environments, skipped };
}
