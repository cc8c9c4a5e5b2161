// Discovery checks (ors-http-api.txt, the sessionless endpoints): /health, /list_environments, the
// base URL as the reference client uses it, each environment's tools and splits, a split's tasks
// by list, count, index and range, and the 400s and 404s for what does not exist.
import {
  describeZodError,
  envPath,
  listEnvironmentsResponseSchema,
  listToolsOutputSchema,
  numTasksResponseSchema,
  splitsSchema,
  taskRangeResponseSchema,
  taskResponseSchema,
  tasksResponseSchema,
} from "@/lib/ors/protocol";
import type { Verdict } from "../findings";
import { breaks, differs, expectStatus, Findings, failed, notExercised, pass } from "../findings";
import { formatMs } from "../labels";
import { describeAnswer, isRedirect, type ProbeAnswer, ProbeError, parseJson, snippet } from "../probe";
import { referenceJsonProblem } from "../reference-client";
import type { CheckContext } from "./context";
import { bodyOf, hex, isObject, list, same, toolsOf } from "./util";

const MAX_ENVS_LISTED = 20;
const MAX_SPLITS = 10;
const MAX_RANGE_ALL = 1_000;

export async function health(ctx: CheckContext): Promise<Verdict> {
  let a: ProbeAnswer;
  try {
    a = await ctx.get("/health");
  } catch (err) {
    if (err instanceof ProbeError && err.kind !== "aborted")
      ctx.stopReason = `the server did not answer GET /health (${err.message})`;
    throw err;
  }
  if (a.status >= 500) return failed(describeAnswer(a));
  const body = parseJson(a);
  if (a.status === 200 && body.ok && isObject(body.value) && body.value.status === "ok") {
    const extra = Object.keys(body.value).filter((k) => k !== "status");
    return pass(
      `HTTP 200 {"status": "ok"${extra.length ? `, plus ${list(extra.map((k) => JSON.stringify(k)))}` : ""}} in ${formatMs(a.ms)}`,
    );
  }
  if (a.status === 401) return differs(`${describeAnswer(a)}: /health asks for an API key`);
  return differs(`${describeAnswer(a)} (the spec: 200 {"status": "ok"})`);
}

export async function listEnvironments(ctx: CheckContext): Promise<Verdict> {
  const a = await ctx.get("/list_environments");
  if (a.status === 401) {
    // Every other request would be refused the same way.
    ctx.stopReason = `the server wants an API key (HTTP 401 on /list_environments)`;
    return failed(
      `${describeAnswer(a)}: the server wants an API key (${ctx.o.apiKey ? "not the one given" : "give one with --api-key"})`,
    );
  }
  if (a.status >= 500) return failed(describeAnswer(a));
  const body = parseJson(a);
  const parsed = body.ok ? listEnvironmentsResponseSchema.safeParse(body.value) : null;
  if (parsed?.success) ctx.envs = parsed.data;
  if (ctx.o.env && !ctx.envs.includes(ctx.o.env) && ctx.envs.length)
    ctx.envProblem = `environment ${JSON.stringify(ctx.o.env)} is not on this server (it has ${list(ctx.envs)})`;
  if (a.status !== 200 || !parsed?.success)
    return differs(
      `${describeAnswer(a)}${parsed && !parsed.success ? `: ${describeZodError(parsed.error)}` : ""} (the spec: a JSON list of names)`,
    );
  if (!ctx.envs.length) return differs("HTTP 200 with an empty list: the server hosts no environment");
  return pass(`${ctx.envs.length} environment${ctx.envs.length === 1 ? "" : "s"}: ${list(ctx.envs)}`);
}

export async function baseUrl(ctx: CheckContext): Promise<Verdict> {
  let url: URL;
  try {
    url = new URL(ctx.probe.baseUrl);
  } catch {
    return failed(`${JSON.stringify(ctx.probe.baseUrl)} is not a URL`);
  }
  const path = url.pathname.replace(/\/+$/, "");
  if (!path) return pass("no path in the base URL: the reference client uses it as is");
  const root = `${url.origin}/list_environments`;
  const a = await ctx.probe.sendTo(root, {
    method: "GET",
    path: "/list_environments",
    accept: "application/json",
  });
  const body = parseJson(a);
  if (a.status === 200 && body.ok && Array.isArray(body.value) && same(body.value, ctx.envs))
    return pass(
      `the reference client drops ${JSON.stringify(path)} and asks ${url.origin}/…, which serves the same environments`,
    );
  return breaks(
    `the reference client drops the path ${JSON.stringify(path)} of its base URL and asks ${root}: ${
      a.status === 200 && body.ok
        ? `another server's environments (${snippet(a.text, 60)})`
        : describeAnswer(a, 60)
    }`,
  );
}

export async function tools(ctx: CheckContext): Promise<Verdict> {
  const given = ctx.o.env && !ctx.envProblem ? [ctx.o.env] : [];
  const envs = [...given, ...ctx.envs.filter((e) => e !== ctx.o.env)];
  if (!envs.length) return notExercised("no environment to ask (GET /list_environments gave none)");
  const f = new Findings();
  let count = 0;
  const asked = envs.slice(0, MAX_ENVS_LISTED);
  for (const env of asked) {
    const a = await ctx.get(envPath(env, "tools"));
    if (a.status >= 500) {
      f.error(`${env}: ${describeAnswer(a)}`);
      continue;
    }
    const body = parseJson(a);
    const found = body.ok ? toolsOf(body.value) : [];
    ctx.toolsByEnv.set(env, found);
    count += found.length;
    const problem = referenceJsonProblem(a, "tools");
    if (problem) f.breaks(`${env}: ${problem} (${describeAnswer(a, 60)})`);
    else {
      const parsed = listToolsOutputSchema.safeParse(body.ok ? body.value : undefined);
      if (!parsed.success) f.differs(`${env}: not a valid tool list: ${describeZodError(parsed.error)}`);
      else if (!parsed.data.tools.length) f.differs(`${env}: no tools`);
    }
  }
  if (f.outcome === "pass")
    f.pass(
      `${asked.length} environment${asked.length === 1 ? "" : "s"}, ${count} tools, every ToolSpec valid${envs.length > asked.length ? ` (the first ${asked.length} of ${envs.length} asked)` : ""}`,
    );
  return f.verdict();
}

/** The environment and task the session checks use: given, or the first environment with tasks. */
export async function pickTarget(ctx: CheckContext): Promise<void> {
  if (ctx.o.env) {
    ctx.env = ctx.o.env;
    ctx.task = ctx.o.task ?? (ctx.envProblem ? null : await ctx.firstTask(ctx.o.env));
    return;
  }
  for (const env of ctx.envs.slice(0, 8)) {
    const task = await ctx.firstTask(env);
    if (task) {
      ctx.env = env;
      ctx.task = ctx.o.task ?? task;
      return;
    }
  }
  ctx.env = ctx.envs[0] ?? null;
  ctx.task = ctx.o.task ?? null;
}

export async function splits(ctx: CheckContext): Promise<Verdict> {
  const none = ctx.noTarget();
  if (none) return none;
  const env = ctx.env!;
  const a = await ctx.get(envPath(env, "splits"));
  if (a.status >= 500) return failed(describeAnswer(a));
  const body = parseJson(a);
  const problem = referenceJsonProblem(a, "splits");
  if (body.ok && Array.isArray(body.value))
    ctx.splitNames = body.value
      .map((s) => (isObject(s) ? s.name : s))
      .filter((s): s is string => typeof s === "string");
  if (problem) return breaks(`${env}: ${problem} (${describeAnswer(a, 60)})`);
  const parsed = splitsSchema.safeParse(body.ok ? body.value : undefined);
  if (!parsed.success) return differs(`${env}: not a valid split list: ${describeZodError(parsed.error)}`);
  if (!parsed.data.length) return differs(`${env}: no splits`);
  return pass(`${env}: ${list(parsed.data.map((s) => `${s.name} (${s.type})`))}`);
}

export async function numTasks(ctx: CheckContext): Promise<Verdict> {
  const none = ctx.noTarget();
  if (none) return none;
  const env = ctx.env!;
  if (!ctx.splitNames.length) return notExercised(`${env}: no split names to ask about`);
  const f = new Findings();
  const counts: string[] = [];
  for (const split of ctx.splitNames.slice(0, MAX_SPLITS)) {
    const a = await ctx.post(envPath(env, "num_tasks"), { split });
    if (a.status >= 500) {
      f.error(`${split}: ${describeAnswer(a)}`);
      continue;
    }
    const problem = referenceJsonProblem(a, "num_tasks");
    if (problem) {
      f.breaks(`${split}: ${problem} (${describeAnswer(a, 60)})`);
      continue;
    }
    const body = parseJson(a);
    const parsed = numTasksResponseSchema.safeParse(body.ok ? body.value : undefined);
    if (!parsed.success) {
      f.differs(`${split}: ${describeZodError(parsed.error)}`);
      continue;
    }
    counts.push(`${split}: ${parsed.data.num_tasks}`);
    if (ctx.task?.split === split) ctx.numTasks = parsed.data.num_tasks;
  }
  if (ctx.task && ctx.numTasks === null && ctx.splitNames.includes(ctx.task.split) === false)
    f.error(`the task's split ${JSON.stringify(ctx.task.split)} is not among ${list(ctx.splitNames)}`);
  if (f.outcome === "pass") f.pass(`${env}: ${list(counts)}`);
  return f.verdict();
}

export async function tasks(ctx: CheckContext): Promise<Verdict> {
  const none = ctx.noTask();
  if (none) return none;
  const { split } = ctx.task!;
  const env = ctx.env!;
  const a = await ctx.post(envPath(env, "tasks"), { split });
  if (a.status >= 500) return failed(describeAnswer(a));
  if (a.truncated) return notExercised(`${split}: the task list is larger than ${a.bytes} bytes`);
  if (a.status === 400)
    return notExercised(`${split}: ${describeAnswer(a, 120)} (an environment may serve tasks by index only)`);
  const problem = referenceJsonProblem(a, "tasks");
  if (problem) return breaks(`${split}: ${problem} (${describeAnswer(a, 60)})`);
  const body = parseJson(a);
  const parsed = tasksResponseSchema.safeParse(body.ok ? body.value : undefined);
  if (!parsed.success) return differs(`${split}: ${describeZodError(parsed.error)}`);
  ctx.tasks = parsed.data.tasks;
  const f = new Findings();
  if (ctx.numTasks !== null && parsed.data.tasks.length !== ctx.numTasks)
    f.differs(`${split}: ${parsed.data.tasks.length} tasks, but num_tasks says ${ctx.numTasks}`);
  if (parsed.data.env_name !== env)
    f.differs(`env_name is ${JSON.stringify(parsed.data.env_name)}, not ${JSON.stringify(env)}`);
  if (f.outcome === "pass")
    f.pass(`${split}: ${parsed.data.tasks.length} tasks (${a.bytes} bytes), env_name ${JSON.stringify(env)}`);
  return f.verdict();
}

export async function fetchTask(
  ctx: CheckContext,
  split: string,
  index: number,
): Promise<{ answer: ProbeAnswer; task: unknown }> {
  const answer = await ctx.post(envPath(ctx.env!, "task"), { split, index });
  const body = parseJson(answer);
  return { answer, task: body.ok && isObject(body.value) ? body.value.task : undefined };
}

export async function task(ctx: CheckContext): Promise<Verdict> {
  const none = ctx.noTask();
  if (none) return none;
  const { split, index } = ctx.task!;
  const { answer: a, task: found } = await fetchTask(ctx, split, index);
  if (a.status >= 500) return failed(describeAnswer(a));
  const problem = referenceJsonProblem(a, "task");
  if (problem) return breaks(`${split}[${index}]: ${problem} (${describeAnswer(a, 60)})`);
  const parsed = taskResponseSchema.safeParse(bodyOf(a));
  if (!parsed.success) return differs(`${split}[${index}]: ${describeZodError(parsed.error)}`);
  ctx.taskSpec = parsed.data.task;
  if (ctx.tasks && index < ctx.tasks.length && !same(ctx.tasks[index], found))
    return differs(`${split}[${index}] differs from task ${index} of POST /tasks`);
  return pass(`${split}[${index}]: ${snippet(JSON.stringify(found), 80)}`);
}

export async function taskRange(ctx: CheckContext): Promise<Verdict> {
  const none = ctx.noTask();
  if (none) return none;
  const { split } = ctx.task!;
  const n = ctx.numTasks;
  if (n === null || n < 1) return notExercised(`${split}: the number of tasks is unknown`);
  const taskAt = async (i: number): Promise<unknown> =>
    ctx.tasks && i < ctx.tasks.length ? ctx.tasks[i] : (await fetchTask(ctx, split, i)).task;
  const f = new Findings();
  const cases: { body: Record<string, unknown>; label: string; expect: number[] }[] = [
    {
      body: { split, start: 0, stop: Math.min(2, n) },
      label: `start 0, stop ${Math.min(2, n)}`,
      expect: [0, 1].filter((i) => i < n),
    },
    { body: { split, start: -1 }, label: "start -1", expect: [n - 1] },
    {
      body: { split, start: n - 1, stop: n + 5 },
      label: `start ${n - 1}, stop ${n + 5} (past the end)`,
      expect: [n - 1],
    },
    {
      body: { split, start: Math.min(2, n), stop: 1 },
      label: `start ${Math.min(2, n)}, stop 1`,
      expect: [],
    },
  ];
  if (n <= MAX_RANGE_ALL) {
    const all = Array.from({ length: n }, (_, i) => i);
    cases.push({ body: { split }, label: "start and stop omitted", expect: all });
    cases.push({ body: { split, start: 0, stop: -1 }, label: "stop -1", expect: all.slice(0, -1) });
  }
  const done: string[] = [];
  for (const c of cases) {
    const a = await ctx.post(envPath(ctx.env!, "task_range"), c.body);
    if (a.status >= 500) {
      f.error(`${c.label}: ${describeAnswer(a)}`);
      continue;
    }
    const problem = referenceJsonProblem(a, "task_range");
    if (problem) {
      f.breaks(`${c.label}: ${problem} (${describeAnswer(a, 60)})`);
      continue;
    }
    const parsed = taskRangeResponseSchema.safeParse(bodyOf(a));
    if (!parsed.success) {
      f.differs(`${c.label}: ${describeZodError(parsed.error)}`);
      continue;
    }
    const got = parsed.data.tasks;
    if (got.length !== c.expect.length) {
      f.differs(`${c.label}: ${got.length} tasks, Python's slice gives ${c.expect.length}`);
      continue;
    }
    // Compare contents at the edges (the whole range for small ones).
    const probes = c.expect.length <= 4 ? c.expect.map((_, i) => i) : [0, c.expect.length - 1];
    let mismatch = false;
    for (const i of probes) {
      if (!same(got[i], await taskAt(c.expect[i]!))) {
        f.differs(`${c.label}: item ${i} is not task ${c.expect[i]}`);
        mismatch = true;
        break;
      }
    }
    if (!mismatch) done.push(c.label);
  }
  if (f.outcome === "pass") f.pass(`${split} (${n} tasks): ${done.join("; ")}`);
  return f.verdict();
}

export async function invalidSplit(ctx: CheckContext): Promise<Verdict> {
  const none = ctx.noTarget();
  if (none) return none;
  const bad = `no-such-split-${hex()}`;
  const f = new Findings();
  f.merge(expectStatus(await ctx.post(envPath(ctx.env!, "num_tasks"), { split: bad }), 400, "num_tasks"));
  f.merge(expectStatus(await ctx.post(envPath(ctx.env!, "task"), { split: bad, index: 0 }), 400, "task"));
  return f.verdict();
}

export async function invalidIndex(ctx: CheckContext): Promise<Verdict> {
  const none = ctx.noTask();
  if (none) return none;
  if (ctx.numTasks === null) return notExercised("the number of tasks is unknown");
  const a = await ctx.post(envPath(ctx.env!, "task"), { split: ctx.task!.split, index: ctx.numTasks });
  return expectStatus(a, 400, `task ${ctx.numTasks} of ${ctx.numTasks}`);
}

/**
 * Task -1: the spec's index is zero-based and an index out of range is a 400; Python lists (and
 * so the reference SDK's get_task) count a negative index from the end.
 */
export async function negativeIndex(ctx: CheckContext): Promise<Verdict> {
  const none = ctx.noTask();
  if (none) return none;
  const { split } = ctx.task!;
  const { answer: a, task: found } = await fetchTask(ctx, split, -1);
  if (a.status >= 500) return failed(describeAnswer(a));
  if (a.status !== 200) return expectStatus(a, 400, `${split}[-1]`);
  const n = ctx.numTasks;
  const last = n !== null && n > 0 ? (await fetchTask(ctx, split, n - 1)).task : undefined;
  if (last !== undefined && same(found, last))
    return differs(
      `${split}[-1]: HTTP 200 with the last task (${split}[${n! - 1}]), as Python lists count from the end; the spec's index is zero-based, out of range a 400`,
      "negative-index",
    );
  return differs(
    `${split}[-1]: ${describeAnswer(a, 80)}; the spec's index is zero-based, out of range a 400`,
  );
}

export async function unknownEnvironment(ctx: CheckContext): Promise<Verdict> {
  const a = await ctx.get(envPath(`no-such-env-${hex()}`, "tools"));
  if (isRedirect(a.status) && ctx.singleEnv)
    return pass(`${describeAnswer(a, 0)}: the spec lets a single-environment server redirect to it`);
  return expectStatus(a, 404, "GET /no-such-env-…/tools");
}
