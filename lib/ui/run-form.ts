// The new-run form as data: its fields (as typed, strings), and the request `POST /api/runs`
// takes built from them, with an error per field and how many episodes it asks for (the task
// selection resolved against the split's size by the runs' own lib/runs/tasks.ts). Pure, so the
// form's rules are unit-tested (tests/ui/run-form.test.ts); the server checks the request again.
// Types only from the spec: its zod schemas stay out of the page's bundle.
import type { RunRequest, TaskSelection } from "@/lib/runs/spec";
import { resolveTasks, TaskSelectionError } from "@/lib/runs/tasks";

/** lib/runs/spec.ts's MAX_TURNS_LIMIT (a test keeps them equal). */
export const MAX_TURNS = 1000;

export type TaskMode = "all" | "range" | "list" | "sample";
export type PolicyKind = "model" | "random" | "replay" | "script";

export interface RunFormValues {
  server: string;
  env: string;
  split: string;
  taskMode: TaskMode;
  rangeFrom: string;
  rangeTo: string;
  list: string;
  sampleSize: string;
  sampleSeed: string;
  repeats: string;
  concurrency: string;
  successAt: string;
  /** Seconds. */
  timeout: string;
  maxTurns: string;
  policy: PolicyKind;
  endpoint: string;
  model: string;
  temperature: string;
  randomSeed: string;
  replayRun: string;
  scriptModule: string;
}

export const DEFAULT_RUN_FORM: RunFormValues = {
  server: "local",
  env: "",
  split: "",
  taskMode: "all",
  rangeFrom: "0",
  rangeTo: "",
  list: "",
  sampleSize: "",
  sampleSeed: "1",
  repeats: "1",
  concurrency: "4",
  successAt: "1",
  timeout: "600",
  maxTurns: "",
  policy: "model",
  endpoint: "",
  model: "",
  temperature: "",
  randomSeed: "1",
  replayRun: "",
  scriptModule: "",
};

export type RunFormErrors = Partial<Record<keyof RunFormValues, string>>;

export interface BuiltRun {
  /** The request, when every field is valid. */
  request: RunRequest | null;
  errors: RunFormErrors;
  /** Tasks selected (null when the split's size or the replayed run's tasks are not known here). */
  tasks: number | null;
  /** Episodes the run plays (tasks × repeats), when known. */
  episodes: number | null;
}

type Parsed = { ok: true; value: number | undefined } | { ok: false; error: string };

/** An optional number field: blank → undefined; else within bounds (and whole when `int`). */
function numberField(
  raw: string,
  { min, max, int, name }: { min?: number; max?: number; int?: boolean; name: string },
): Parsed {
  const text = raw.trim();
  if (text === "") return { ok: true, value: undefined };
  const n = Number(text);
  if (!Number.isFinite(n)) return { ok: false, error: `${name} must be a number` };
  if (int && !Number.isInteger(n)) return { ok: false, error: `${name} must be a whole number` };
  if (min !== undefined && n < min) return { ok: false, error: `${name} must be at least ${min}` };
  if (max !== undefined && n > max) return { ok: false, error: `${name} must be at most ${max}` };
  return { ok: true, value: n };
}

const LIST = /^\s*\d+(\s*-\s*\d+)?(\s*,\s*\d+(\s*-\s*\d+)?)*\s*$/;

/** The task selection the fields ask for (undefined: all, or the replayed run's), or why not. */
export function taskSelectionOf(
  v: Pick<RunFormValues, "taskMode" | "rangeFrom" | "rangeTo" | "list" | "sampleSize" | "sampleSeed">,
):
  | { ok: true; selection: TaskSelection | undefined }
  | { ok: false; field: keyof RunFormValues; error: string } {
  switch (v.taskMode) {
    case "all":
      return { ok: true, selection: undefined };
    case "range": {
      const from = numberField(v.rangeFrom, { min: 0, int: true, name: "The first task" });
      if (!from.ok) return { ok: false, field: "rangeFrom", error: from.error };
      const to = numberField(v.rangeTo, { min: 0, int: true, name: "The last task" });
      if (!to.ok) return { ok: false, field: "rangeTo", error: to.error };
      if (from.value === undefined) return { ok: false, field: "rangeFrom", error: "Give the first task" };
      if (to.value === undefined) return { ok: false, field: "rangeTo", error: "Give the last task" };
      if (to.value < from.value)
        return { ok: false, field: "rangeTo", error: "The last task comes before the first" };
      return { ok: true, selection: `${from.value}-${to.value}` };
    }
    case "list": {
      const text = v.list.trim();
      if (!text) return { ok: false, field: "list", error: "List the tasks, e.g. 1,5,9 or 0-9,20-29" };
      if (!LIST.test(text))
        return {
          ok: false,
          field: "list",
          error: "Task indexes and ranges separated by commas, e.g. 1,5,9-12",
        };
      return { ok: true, selection: text.replace(/\s+/g, "") };
    }
    case "sample": {
      const n = numberField(v.sampleSize, { min: 1, int: true, name: "The sample size" });
      if (!n.ok) return { ok: false, field: "sampleSize", error: n.error };
      if (n.value === undefined)
        return { ok: false, field: "sampleSize", error: "Give the number of tasks to draw" };
      const seed = numberField(v.sampleSeed, { int: true, name: "The seed" });
      if (!seed.ok) return { ok: false, field: "sampleSeed", error: seed.error };
      return {
        ok: true,
        selection: seed.value === undefined ? { sample: n.value } : { sample: n.value, seed: seed.value },
      };
    }
  }
}

/** The field that shows an error of each way of choosing tasks. */
const SELECTION_FIELD: Record<TaskMode, keyof RunFormValues> = {
  all: "split",
  range: "rangeTo",
  list: "list",
  sample: "sampleSize",
};

/**
 * The request of the form's values, every invalid field with its error, and the number of tasks
 * and episodes (when `numTasks`, the split's size, is known).
 */
export function buildRunRequest(v: RunFormValues, numTasks?: number): BuiltRun {
  const errors: RunFormErrors = {};
  const field = <T extends Parsed>(key: keyof RunFormValues, p: T): number | undefined => {
    if (!p.ok) {
      errors[key] = p.error;
      return undefined;
    }
    return p.value;
  };
  if (!v.server) errors.server = "Choose a server";
  if (!v.env) errors.env = "Choose an environment";
  if (!v.split) errors.split = "Choose a split";

  const selection = taskSelectionOf(v);
  let tasks: number | null = null;
  if (!selection.ok) errors[selection.field] = selection.error;
  else if (numTasks !== undefined && !(v.policy === "replay" && selection.selection === undefined)) {
    try {
      tasks = resolveTasks(selection.selection, numTasks).length;
    } catch (err) {
      if (!(err instanceof TaskSelectionError)) throw err;
      errors[SELECTION_FIELD[v.taskMode]] = err.message.charAt(0).toUpperCase() + err.message.slice(1);
    }
  }

  const repeats = field("repeats", numberField(v.repeats, { min: 1, max: 100, int: true, name: "Repeats" }));
  const concurrency = field(
    "concurrency",
    numberField(v.concurrency, { min: 1, max: 256, int: true, name: "Concurrency" }),
  );
  const successAt = field("successAt", numberField(v.successAt, { name: "The success threshold" }));
  const timeout = field(
    "timeout",
    numberField(v.timeout, { min: 0.1, max: 24 * 3600, name: "The time limit" }),
  );
  const maxTurns = field(
    "maxTurns",
    numberField(v.maxTurns, { min: 1, max: MAX_TURNS, int: true, name: "Max turns" }),
  );

  let policy: RunRequest["policy"] | null = null;
  const turns = maxTurns === undefined ? {} : { maxTurns };
  switch (v.policy) {
    case "model": {
      const temperature = field(
        "temperature",
        numberField(v.temperature, { min: 0, max: 2, name: "The temperature" }),
      );
      if (!v.endpoint) errors.endpoint = "Choose a model endpoint";
      if (!v.model.trim()) errors.model = "Give the model's id";
      policy = {
        kind: "model",
        endpoint: v.endpoint,
        model: v.model.trim(),
        ...turns,
        ...(temperature === undefined ? {} : { temperature }),
      };
      break;
    }
    case "random": {
      const seed = field("randomSeed", numberField(v.randomSeed, { int: true, name: "The seed" }));
      policy = { kind: "random", ...(seed === undefined ? {} : { seed }), ...turns };
      break;
    }
    case "replay":
      if (!v.replayRun) errors.replayRun = "Choose the run to replay";
      policy = { kind: "replay", run: v.replayRun, ...turns };
      break;
    case "script":
      if (!v.scriptModule.trim()) errors.scriptModule = "Give the module's path";
      policy = { kind: "script", module: v.scriptModule.trim(), ...turns };
      break;
  }

  const episodes = tasks === null ? null : tasks * (repeats ?? 1);
  if (Object.keys(errors).length > 0 || !policy || !selection.ok)
    return { request: null, errors, tasks, episodes };
  const request: RunRequest = {
    server: v.server,
    env: v.env,
    split: v.split,
    ...(selection.selection === undefined ? {} : { tasks: selection.selection }),
    ...(repeats === undefined ? {} : { repeats }),
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(successAt === undefined ? {} : { successAt }),
    ...(timeout === undefined ? {} : { timeoutMs: Math.round(timeout * 1000) }),
    policy,
  };
  return { request, errors, tasks, episodes };
}
