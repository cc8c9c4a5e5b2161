// An ORS server's surface (docs/ci.md "What diff compares"): per environment its tools with their
// input schemas, its splits with their types and task counts, the task specs of the first indexes
// of each split (hashed), and the prompts and task tools of a seeded sample of tasks. Read with the
// typed client from any server; `diff` compares two, the stub serves one. Isomorphic.
import { z } from "zod";
import { isOrsClientError, type OrsClient } from "@/lib/ors/client";
import { type Block, blocksSchema, type JsonObject, jsonObjectSchema } from "@/lib/ors/protocol";
import { sampleIndexes } from "@/lib/runs/tasks";
import { stableStringify } from "@/lib/trajectory/diff";

export const SURFACE_FORMAT = "ors-surface/1";
/** Task specs read per split by default (`--tasks`): the rest of a larger split is counted, not read. */
export const DEFAULT_SURFACE_TASKS = 1000;
export const MAX_SURFACE_TASKS = 100_000;
/** Prompts read per split (each in a session of its own), and the seed of their sample. */
export const DEFAULT_SURFACE_PROMPTS = 2;
export const DEFAULT_SURFACE_SEED = 1;

const toolSchema = z.object({
  name: z.string(),
  description: z.string(),
  input_schema: jsonObjectSchema.nullable(),
});
export type SurfaceTool = z.infer<typeof toolSchema>;

const taskSchema = z.object({
  index: z.number().int().nonnegative(),
  hash: z.string(),
  spec: jsonObjectSchema,
});
export type SurfaceTask = z.infer<typeof taskSchema>;

const splitSchema = z.object({
  name: z.string(),
  type: z.string(),
  count: z.number().int().nonnegative(),
  /** The specs of tasks 0..min(count, bound)-1. */
  tasks: z.array(taskSchema),
});
export type SurfaceSplit = z.infer<typeof splitSchema>;

const promptSchema = z.object({
  split: z.string(),
  index: z.number().int().nonnegative(),
  /** Null when the task's session could not be started (`error` says why). */
  hash: z.string().nullable(),
  blocks: blocksSchema.nullable(),
  /** The session's task tools (null when the server has no /task_tools). */
  tools: z.array(toolSchema).nullable(),
  error: z.string().nullable(),
});
export type SurfacePrompt = z.infer<typeof promptSchema>;

const environmentSchema = z.object({
  name: z.string(),
  tools: z.array(toolSchema),
  splits: z.array(splitSchema),
  prompts: z.array(promptSchema),
  /** What could not be read (the rest was). */
  errors: z.array(z.string()),
});
export type SurfaceEnvironment = z.infer<typeof environmentSchema>;

export const surfaceSchema = z.object({
  format: z.literal(SURFACE_FORMAT),
  url: z.string(),
  readAt: z.string(),
  /** Task specs read per split. */
  tasksBound: z.number().int().nonnegative(),
  environments: z.array(environmentSchema),
});
export type Surface = z.infer<typeof surfaceSchema>;

/** A short stable hash of a JSON value (cyrb53 over its canonical JSON): equal values, equal hashes. */
export function jsonHash(value: unknown): string {
  const s = stableStringify(value);
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const ch = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, "0");
}

/** A prompt's hash: its blocks without the `detail` a server may fill or leave out. */
export function promptHash(blocks: readonly Block[]): string {
  return jsonHash(blocks.map((b) => (b.type === "text" ? { t: b.text } : { i: b.data, m: b.mimeType })));
}

export interface ReadSurfaceOptions {
  /** Only this environment (default: every one the server lists). */
  env?: string;
  /** Task specs read per split (default DEFAULT_SURFACE_TASKS). */
  tasks?: number;
  /** Prompts read per split (default DEFAULT_SURFACE_PROMPTS), sampled with `seed`. */
  prompts?: number;
  seed?: number;
  /** The prompt indexes to read, by `env/split`, instead of a sample (diff reads the same on both sides). */
  promptIndexes?: ReadonlyMap<string, readonly number[]>;
  signal?: AbortSignal;
}

/** The tasks whose prompts are read in a split of `count`: a seeded sample, the same for the same count. */
export function promptSample(
  count: number,
  n = DEFAULT_SURFACE_PROMPTS,
  seed = DEFAULT_SURFACE_SEED,
): number[] {
  return sampleIndexes(count, Math.min(n, count), seed);
}

export const promptKey = (env: string, split: string) => `${env}/${split}`;

function why(err: unknown): string {
  return isOrsClientError(err) ? err.detail : err instanceof Error ? err.message : String(err);
}

const toolOf = (t: { name: string; description: string; input_schema?: JsonObject | null }): SurfaceTool => ({
  name: t.name,
  description: t.description,
  input_schema: t.input_schema ?? null,
});

const PAGE = 100;

async function readTasks(ors: OrsClient, env: string, split: string, n: number, signal?: AbortSignal) {
  const specs: JsonObject[] = [];
  try {
    while (specs.length < n) {
      const stop = Math.min(n, specs.length + PAGE);
      const page = (await ors.taskRange(env, split, specs.length, stop, { signal })).tasks;
      if (!page.length) break;
      specs.push(...page.slice(0, stop - specs.length));
    }
  } catch (err) {
    // A server without /task_range: one task at a time.
    if (!(isOrsClientError(err) && [404, 405, 422].includes(err.status)) || specs.length) throw err;
    for (let i = 0; i < n; i++) specs.push((await ors.task(env, split, i, { signal })).task);
  }
  return specs.map((spec, index) => ({ index, hash: jsonHash(spec), spec }));
}

/** One task's prompt and task tools, in a session of its own (deleted afterwards). */
async function readPrompt(
  ors: OrsClient,
  env: string,
  split: string,
  index: number,
  signal?: AbortSignal,
): Promise<SurfacePrompt> {
  let sid: string | null = null;
  try {
    sid = (await ors.createSession({ signal })).sid;
    await ors.create(sid, { env_name: env, split, index }, { signal });
    const blocks = await ors.prompt(env, sid, { signal });
    let tools: SurfaceTool[] | null = null;
    try {
      tools = (await ors.taskTools(env, sid, { signal })).tools.map(toolOf);
    } catch (err) {
      if (!(isOrsClientError(err) && (err.status === 404 || err.status === 405))) throw err;
    }
    return { split, index, hash: promptHash(blocks), blocks, tools, error: null };
  } catch (err) {
    return { split, index, hash: null, blocks: null, tools: null, error: why(err) };
  } finally {
    if (sid) await ors.delete(sid).catch(() => {});
  }
}

async function readEnvironment(
  ors: OrsClient,
  name: string,
  o: ReadSurfaceOptions,
): Promise<SurfaceEnvironment> {
  const signal = o.signal;
  const env: SurfaceEnvironment = { name, tools: [], splits: [], prompts: [], errors: [] };
  try {
    env.tools = (await ors.tools(name, { signal })).tools.map(toolOf);
  } catch (err) {
    env.errors.push(`tools: ${why(err)}`);
  }
  let splits: { name: string; type: string }[] = [];
  try {
    splits = await ors.splits(name, { signal });
  } catch (err) {
    env.errors.push(`splits: ${why(err)}`);
  }
  const bound = o.tasks ?? DEFAULT_SURFACE_TASKS;
  for (const s of splits) {
    try {
      const count = (await ors.numTasks(name, s.name, { signal })).num_tasks;
      const tasks = await readTasks(ors, name, s.name, Math.min(count, bound), signal);
      env.splits.push({ name: s.name, type: s.type, count, tasks });
    } catch (err) {
      env.errors.push(`tasks of ${s.name}: ${why(err)}`);
    }
  }
  for (const s of env.splits) {
    const indexes = o.promptIndexes?.get(promptKey(name, s.name)) ?? promptSample(s.count, o.prompts, o.seed);
    for (const index of indexes) env.prompts.push(await readPrompt(ors, name, s.name, index, signal));
  }
  return env;
}

/**
 * Reads a server's surface. Throws (an OrsClientError) when the server cannot list its
 * environments, or when `o.env` is not one of them; what fails below that is kept in `errors`.
 *
 * @example
 * const surface = await readSurface(createOrsClient({ baseUrl: "http://127.0.0.1:8080" }), { env: "math" });
 */
export async function readSurface(ors: OrsClient, o: ReadSurfaceOptions = {}): Promise<Surface> {
  const names = await ors.listEnvironments({ signal: o.signal });
  if (o.env !== undefined && !names.includes(o.env))
    throw new SurfaceError(`the server has no environment "${o.env}" (it has ${names.join(", ") || "none"})`);
  const environments: SurfaceEnvironment[] = [];
  for (const name of o.env !== undefined ? [o.env] : names)
    environments.push(await readEnvironment(ors, name, o));
  return {
    format: SURFACE_FORMAT,
    url: ors.baseUrl,
    readAt: new Date().toISOString(),
    tasksBound: o.tasks ?? DEFAULT_SURFACE_TASKS,
    environments,
  };
}

/** A surface that cannot be read as asked (an unknown environment). */
export class SurfaceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SurfaceError";
  }
}
