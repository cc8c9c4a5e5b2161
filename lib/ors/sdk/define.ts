// The environment authoring API: defineEnvironment / defineTool and the block helpers.
// Registration fails fast (no tools, no splits, bad names, two task sources, a schema that does not
// compile) with a message that names the environment or tool, so a broken one never reaches a request.
import { z } from "zod";
import type { Block, ImageBlock, JsonObject, Split, SplitType, TextBlock } from "../protocol/schemas";
import { compileJsonSchema } from "./json-schema";

/** What a tool run returns. `finished` defaults to false, `reward` and `metadata` to null. */
export interface ToolResult {
  blocks: Block[];
  reward?: number | null;
  finished?: boolean;
  metadata?: JsonObject | null;
}

/** What every hook of an environment gets for one session. */
export interface SessionContext<Task = JsonObject, State = Record<string, unknown>> {
  /** The session id (`X-Session-ID`). */
  readonly sessionId: string;
  /** The task spec this episode runs on. */
  readonly task: Task;
  /** Secrets passed to `/create` (body `secrets` or the `X-Secrets` header). Never logged. */
  readonly secrets: Readonly<Record<string, string>>;
  /** Per-session mutable state, created by `createState` (default `{}`). */
  state: State;
}

/** A tool run's context: the session context plus an abort signal (per-call time limit, teardown). */
export interface ToolContext<Task = JsonObject, State = Record<string, unknown>>
  extends SessionContext<Task, State> {
  readonly signal: AbortSignal;
}

/** A JSON Schema object, as a tool's `inputSchema` (served verbatim as `input_schema`). */
export type JsonSchema = JsonObject;

/**
 * A tool: a description, a `run` function and at most one input schema, either `input` (zod,
 * served as JSON Schema) or `inputSchema` (a JSON Schema object, served verbatim and validated with
 * AJV: for what zod cannot express, such as `prefixItems` tuples). Neither: the tool takes no input.
 */
export type ToolDefinition<Input = unknown, Task = JsonObject, State = Record<string, unknown>> = {
  description: string;
  run: (input: Input, ctx: ToolContext<Task, State>) => ToolResult | Promise<ToolResult>;
} & (
  | {
      /** A zod schema of the input; served as JSON Schema. */
      input?: z.ZodType<Input>;
      inputSchema?: never;
    }
  | {
      /**
       * A JSON Schema of the input (draft 2020-12 unless its `$schema` says draft-07 or 2019-09),
       * served verbatim as `input_schema`. `run` gets the input with schema defaults filled in,
       * typed as the `Input` type parameter (`unknown` unless given).
       */
      inputSchema: JsonSchema;
      input?: never;
    }
);

/** A defined tool: its definition plus its JSON Schema, computed once at definition time. */
export interface Tool<Task = JsonObject, State = Record<string, unknown>> {
  readonly kind: "ors-tool";
  readonly description: string;
  readonly inputSchema: JsonObject | null;
  /** Validates raw input; returns the parsed value or a message naming the offending fields. */
  parse(raw: unknown): { ok: true; value: unknown } | { ok: false; error: string };
  /** Runs the tool on parsed input: what its `run` returns, a result (a synchronous tool, which the
   *  host then answers at once) or a promise of one; it may throw. */
  run(input: unknown, ctx: ToolContext<Task, State>): ToolResult | Promise<ToolResult>;
}

// biome-ignore lint/suspicious/noExplicitAny: tools of any task and state type share a registry.
export type AnyTool = Tool<any, any>;

/**
 * Defines a tool. Throws at once, naming the tool by its description, when both `input` and
 * `inputSchema` are given or when `inputSchema` does not compile.
 *
 * @example
 * const submit = defineTool({
 *   description: "Submit an answer",
 *   input: z.object({ answer: z.string() }),
 *   run: ({ answer }, { task }) => ({ blocks: [text(answer === task.answer ? "Correct!" : "Wrong")], reward: answer === task.answer ? 1 : 0, finished: true }),
 * });
 *
 * // A raw JSON Schema (a tuple zod cannot emit), validated with AJV:
 * const move = defineTool<{ to: [number, number] }>({
 *   description: "Move to [x, y]",
 *   inputSchema: {
 *     type: "object",
 *     properties: { to: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }], items: false, minItems: 2 } },
 *     required: ["to"],
 *   },
 *   run: ({ to: [x, y] }) => ({ blocks: [text(`at ${x}, ${y}`)] }),
 * });
 */
export function defineTool<Input = unknown, Task = JsonObject, State = Record<string, unknown>>(
  def: ToolDefinition<Input, Task, State>,
): Tool<Task, State> {
  if (typeof def.description !== "string") throw new Error("defineTool: description must be a string");
  const where = `defineTool ${JSON.stringify(def.description.length > 60 ? `${def.description.slice(0, 57)}...` : def.description)}`;
  if (typeof def.run !== "function") throw new Error(`${where}: run must be a function`);
  if (def.input !== undefined && def.inputSchema !== undefined)
    throw new Error(`${where}: give either input (a zod schema) or inputSchema (a JSON Schema), not both`);
  if (def.inputSchema !== undefined) return rawSchemaTool(def, def.inputSchema, where);
  const schema = def.input;
  let inputSchema: JsonObject | null = null;
  if (schema) {
    const json = z.toJSONSchema(schema, {
      target: "draft-7",
      io: "input",
      unrepresentable: "any",
    }) as JsonObject;
    const { $schema: _drop, ...rest } = json;
    inputSchema = rest;
  }
  return {
    kind: "ors-tool",
    description: def.description,
    inputSchema,
    parse(raw) {
      if (!schema) return { ok: true, value: raw ?? {} };
      const result = schema.safeParse(raw);
      if (result.success) return { ok: true, value: result.data };
      const fields = result.error.issues
        .map((i) => `${i.path.length ? i.path.map(String).join(".") : "input"}: ${i.message}`)
        .join("; ");
      return { ok: false, error: `Invalid input: ${fields}` };
    },
    run(input, ctx) {
      return def.run(input as Input, ctx);
    },
  };
}

/** A tool declared with a raw JSON Schema: served verbatim, validated by AJV (compiled here, once). */
function rawSchemaTool<Input, Task, State>(
  def: ToolDefinition<Input, Task, State>,
  inputSchema: JsonObject,
  where: string,
): Tool<Task, State> {
  if (inputSchema === null || typeof inputSchema !== "object" || Array.isArray(inputSchema))
    throw new Error(`${where}: inputSchema must be a JSON Schema object`);
  let validate: ReturnType<typeof compileJsonSchema>;
  try {
    validate = compileJsonSchema(inputSchema);
  } catch (err) {
    throw new Error(
      `${where}: inputSchema does not compile: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  return {
    kind: "ors-tool",
    description: def.description,
    inputSchema,
    parse(raw) {
      const result = validate(raw);
      return result.ok ? result : { ok: false, error: `Invalid input: ${result.error}` };
    },
    run(input, ctx) {
      return def.run(input as Input, ctx);
    },
  };
}

/** The task source of an environment: a materialized list, or a count plus lookup by index. */
export type TaskSource<Task> =
  | {
      listTasks: (split: string) => Task[] | Promise<Task[]>;
      numTasks?: never;
      getTask?: never;
    }
  | {
      listTasks?: never;
      numTasks: (split: string) => number | Promise<number>;
      getTask: (split: string, index: number) => Task | Promise<Task>;
    };

export type EnvironmentDefinition<Task = JsonObject, State = Record<string, unknown>> = {
  name: string;
  description?: string;
  /** Splits, as `{name, type}` or as a name of `train`, `validation` or `test`. */
  splits: Array<Split | SplitType>;
  getPrompt: (ctx: SessionContext<Task, State>) => Block[] | string | Promise<Block[] | string>;
  tools: Record<string, Tool<Task, State>>;
  /** Tools only this task has: served by `/{env}/task_tools`, not by `/{env}/tools`. */
  taskTools?: (ctx: SessionContext<Task, State>) => Record<string, Tool<Task, State>>;
  /** Builds the per-session state (default `{}`). */
  createState?: (ctx: { task: Task; secrets: Readonly<Record<string, string>> }) => State;
  /** Runs after `/create`, asynchronously: requests of the session wait for it. Throw to fail. */
  setup?: (ctx: SessionContext<Task, State>) => void | Promise<void>;
  /** Runs on `/delete`, idle expiry and maximum duration. */
  teardown?: (ctx: SessionContext<Task, State>) => void | Promise<void>;
} & TaskSource<Task>;

/** A registered environment, as the host sees it. */
export interface Environment<Task = JsonObject, State = Record<string, unknown>> {
  readonly kind: "ors-environment";
  readonly name: string;
  readonly description: string;
  readonly splits: Split[];
  readonly tools: ReadonlyMap<string, Tool<Task, State>>;
  hasSplit(split: string): boolean;
  /** The number of tasks of a split. */
  numTasks(split: string): Promise<number>;
  /** One task by index (0 ≤ index < numTasks). */
  getTask(split: string, index: number): Promise<Task>;
  /** Tasks [start, stop) of a split, without materializing the others where the source allows it. */
  getTaskRange(split: string, start: number, stop: number): Promise<Task[]>;
  /** Every task of a split (for `/tasks`). */
  listTasks(split: string): Promise<Task[]>;
  readonly definition: EnvironmentDefinition<Task, State>;
}

// biome-ignore lint/suspicious/noExplicitAny: environments of any task and state type share a registry.
export type AnyEnvironment = Environment<any, any>;

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const SPLIT_TYPES = new Set<string>(["train", "validation", "test"]);

/**
 * Defines an environment. Throws at once, naming the environment, if it has no tools, no splits,
 * an invalid name, duplicate splits, or not exactly one task source.
 *
 * @example
 * export default defineEnvironment({
 *   name: "math",
 *   splits: ["train", "test"],
 *   listTasks: (split) => tasks[split],
 *   getPrompt: ({ task }) => task.question,
 *   tools: { submit },
 * });
 */
export function defineEnvironment<Task = JsonObject, State = Record<string, unknown>>(
  def: EnvironmentDefinition<Task, State>,
): Environment<Task, State> {
  const where = `environment ${JSON.stringify(def.name)}`;
  if (typeof def.name !== "string" || !NAME_PATTERN.test(def.name)) {
    throw new Error(`${where}: name must match ${NAME_PATTERN} (letters, digits, _ . -)`);
  }
  if (!Array.isArray(def.splits) || def.splits.length === 0) throw new Error(`${where}: has no splits`);
  const splits: Split[] = def.splits.map((s) => {
    if (typeof s === "string") {
      if (!SPLIT_TYPES.has(s)) throw new Error(`${where}: split ${JSON.stringify(s)} needs a type`);
      return { name: s, type: s };
    }
    if (!SPLIT_TYPES.has(s.type))
      throw new Error(`${where}: split ${JSON.stringify(s.name)} has invalid type ${JSON.stringify(s.type)}`);
    return { name: s.name, type: s.type };
  });
  const seenSplits = new Set<string>();
  for (const s of splits) {
    if (seenSplits.has(s.name)) throw new Error(`${where}: two splits named ${JSON.stringify(s.name)}`);
    seenSplits.add(s.name);
  }
  const toolEntries = Object.entries(def.tools ?? {});
  if (toolEntries.length === 0) throw new Error(`${where}: has no tools`);
  for (const [toolName, tool] of toolEntries) {
    if (!NAME_PATTERN.test(toolName))
      throw new Error(`${where}: tool name ${JSON.stringify(toolName)} is invalid`);
    if (tool?.kind !== "ors-tool")
      throw new Error(`${where}: tool ${JSON.stringify(toolName)} was not made with defineTool`);
  }
  const hasList = typeof def.listTasks === "function";
  const hasIndex = typeof def.numTasks === "function" || typeof def.getTask === "function";
  if (hasList === hasIndex) throw new Error(`${where}: give either listTasks, or numTasks and getTask`);
  if (hasIndex && (typeof def.numTasks !== "function" || typeof def.getTask !== "function")) {
    throw new Error(`${where}: numTasks and getTask go together`);
  }
  if (typeof def.getPrompt !== "function") throw new Error(`${where}: getPrompt must be a function`);

  const hasSplit = (split: string) => seenSplits.has(split);
  // A materialized split is computed once and kept: listTasks may be costly.
  const listed = new Map<string, Promise<Task[]>>();
  const list = (split: string): Promise<Task[]> => {
    let p = listed.get(split);
    if (!p) {
      p = Promise.resolve(def.listTasks!(split));
      listed.set(split, p);
      p.catch(() => listed.delete(split));
    }
    return p;
  };

  return {
    kind: "ors-environment",
    name: def.name,
    description: def.description ?? "",
    splits,
    tools: new Map(toolEntries),
    hasSplit,
    async numTasks(split) {
      if (hasList) return (await list(split)).length;
      return def.numTasks!(split);
    },
    async getTask(split, index) {
      if (hasList) {
        const tasks = await list(split);
        if (!Number.isInteger(index) || index < 0 || index >= tasks.length)
          throw new RangeError("Invalid index");
        return tasks[index]!;
      }
      const n = await def.numTasks!(split);
      if (!Number.isInteger(index) || index < 0 || index >= n) throw new RangeError("Invalid index");
      return def.getTask!(split, index);
    },
    async getTaskRange(split, start, stop) {
      if (hasList) return (await list(split)).slice(start, stop);
      const out: Task[] = [];
      for (let i = start; i < stop; i++) out.push(await def.getTask!(split, i));
      return out;
    },
    async listTasks(split) {
      if (hasList) return list(split);
      const n = await def.numTasks!(split);
      const out: Task[] = [];
      for (let i = 0; i < n; i++) out.push(await def.getTask!(split, i));
      return out;
    },
    definition: def,
  };
}

/** A text block. */
export function text(s: string): TextBlock {
  return { type: "text", text: s, detail: null };
}

/** An image block from base64 data (e.g. a PNG the environment drew). */
export function image(base64: string, mimeType: string): ImageBlock {
  return { type: "image", data: base64, mimeType, detail: null };
}
