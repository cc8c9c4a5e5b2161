// What the OpenReward platform's Python client needs beyond the spec (docs/check.md): paths without
// the environment segment (routed by X-Deployment, or to the only one), env_name in /task and
// /task_range, SSE from /create_session. Unmet needs are `breaks-openreward-client`.
import { blocksSchema, envPath, type SseFrame } from "@/lib/ors/protocol";
import { analyzeCall, describeEvents } from "../calls";
import { breaksOpenReward, Findings, notExercised, pass, type Verdict } from "../findings";
import { rankToolsForCall } from "../inputs";
import { describeAnswer, isRedirect, isSse, type ProbeAnswer, type ProbeRequest, snippet } from "../probe";
import { referenceCreateSession } from "../reference-client";
import type { CheckTask } from "../types";
import type { CheckContext } from "./context";
import { bodyOf, isObject, list, same, toolsOf } from "./util";

const DEPLOYMENT = "x-deployment";
/** Redirects followed at most, as HTTP clients do (never to another server). */
const MAX_REDIRECTS = 3;
const stopAtTerminal = (f: SseFrame) => f.kind === "event" && (f.event === "end" || f.event === "error");

/** /create_session asked with `Accept: text/event-stream` (the answer create-session-sse got). */
export async function createSessionSse(ctx: CheckContext): Promise<Verdict> {
  const a = ctx.sseSessionAnswer ?? (await ctx.createSessionSse());
  if (a.status >= 400) return notExercised(`${describeAnswer(a, 80)} (see create-session-sse)`);
  if (!isSse(a))
    return breaksOpenReward(
      `asked with Accept: text/event-stream, answers ${describeAnswer(a, 60)}: the OpenReward client reads the session id from SSE`,
    );
  const ref = referenceCreateSession(a);
  if (!ref.ok) return breaksOpenReward(`SSE without a session id: ${ref.failure}`);
  return pass(`HTTP 200 text/event-stream with the sid ${JSON.stringify(snippet(ref.sid, 40))}`);
}

/** `env_name` in the answers of /task and /task_range (the OpenReward client reads it). */
export async function envName(ctx: CheckContext): Promise<Verdict> {
  const none = ctx.noTask();
  if (none) return none;
  const env = ctx.env!;
  const { split, index } = ctx.task!;
  const f = new Findings();
  const asked: [string, ProbeAnswer][] = [
    [`POST /${env}/task`, await ctx.post(envPath(env, "task"), { split, index })],
    [
      `POST /${env}/task_range`,
      await ctx.post(envPath(env, "task_range"), { split, start: index, stop: index + 1 }),
    ],
  ];
  for (const [what, a] of asked) {
    // A failing answer is the task checks' finding, not this one's.
    if (a.status !== 200) {
      f.notExercised(`${what}: ${describeAnswer(a, 60)} (see task, task-range)`);
      continue;
    }
    const body = bodyOf(a);
    const name = isObject(body) ? body.env_name : undefined;
    if (name === undefined)
      f.breaksOpenReward(
        `${what}: no env_name (the OpenReward client reads it and raises KeyError)`,
        "task-without-env-name",
      );
    else if (name !== env)
      f.breaksOpenReward(`${what}: env_name ${JSON.stringify(name)}, not ${JSON.stringify(env)}`);
    else f.pass(`${what}: env_name ${JSON.stringify(name)}`);
  }
  return f.verdict();
}

/** One request as an HTTP client makes it: same-server redirects followed (307/308 keep the body). */
async function follow(ctx: CheckContext, req: ProbeRequest): Promise<{ answer: ProbeAnswer; via: string }> {
  let url = ctx.probe.url(req.path);
  let r: ProbeRequest = { accept: "application/json", ...req };
  const hops: string[] = [];
  for (let hop = 0; ; hop++) {
    const answer = await ctx.probe.sendTo(url, r);
    const via = hops.length ? ` (via ${hops.join(", ")})` : "";
    if (!isRedirect(answer.status) || !answer.location || hop >= MAX_REDIRECTS) return { answer, via };
    const next = new URL(answer.location, url);
    if (next.origin !== new URL(url).origin) return { answer, via };
    hops.push(`${answer.status} to ${next.pathname}`);
    if (answer.status !== 307 && answer.status !== 308) r = { ...r, method: "GET", json: undefined };
    url = next.toString();
  }
}

interface Discovery {
  path: "tools" | "splits" | "num_tasks" | "task";
  method: "GET" | "POST";
  body?: Record<string, unknown>;
}

function discoveryOf(task: CheckTask | null): Discovery[] {
  const out: Discovery[] = [
    { path: "tools", method: "GET" },
    { path: "splits", method: "GET" },
  ];
  if (task) {
    out.push({ path: "num_tasks", method: "POST", body: { split: task.split } });
    out.push({ path: "task", method: "POST", body: { split: task.split, index: task.index } });
  }
  return out;
}

/** The environment the client names, with a task: the only one, or one that is not the first. */
async function deployment(ctx: CheckContext): Promise<{ env: string; task: CheckTask | null }> {
  const task = async (env: string) => (env === ctx.env ? ctx.task : await ctx.firstTask(env));
  if (ctx.singleEnv) return { env: ctx.envs[0]!, task: await task(ctx.envs[0]!) };
  const others = ctx.envs.slice(1);
  const candidates = [...others.filter((e) => e === ctx.env), ...others.filter((e) => e !== ctx.env)];
  for (const env of candidates.slice(0, 3)) {
    const t = await task(env);
    if (t) return { env, task: t };
  }
  return { env: candidates[0]!, task: null };
}

interface Broken {
  text: string;
  /** Answered by the first environment after a 308 to its path: X-Deployment was not read. */
  firstEnv: boolean;
}

/** /prompt, /task_tools and /call without the environment, in a session of `env` made for them. */
async function sessionPaths(
  ctx: CheckContext,
  env: string,
  task: CheckTask,
  headers: Record<string, string>,
): Promise<{ broken: Broken[]; tried: string[] }> {
  const sid = await ctx.newSid();
  const created = await ctx.create(
    sid,
    { env_name: env, split: task.split, index: task.index },
    env,
    headers,
  );
  if (created.status !== 200)
    return { broken: [{ text: `POST /create: ${describeAnswer(created, 60)}`, firstEnv: false }], tried: [] };
  const broken: Broken[] = [];
  const tried = ["/prompt", "/task_tools"];
  try {
    const prompt = await follow(ctx, { method: "GET", path: "/prompt", sid, headers });
    if (prompt.answer.status !== 200 || !blocksSchema.safeParse(bodyOf(prompt.answer)).success)
      broken.push({
        text: `GET /prompt: ${describeAnswer(prompt.answer, 60)}${prompt.via}`,
        firstEnv: false,
      });
    const taskTools = await follow(ctx, { method: "GET", path: "/task_tools", sid, headers });
    if (taskTools.answer.status !== 200 || !toolsOf(bodyOf(taskTools.answer)).length)
      broken.push({
        text: `GET /task_tools: ${describeAnswer(taskTools.answer, 60)}${taskTools.via}`,
        firstEnv: false,
      });
    const tools = ctx.toolsByEnv.get(env) ?? [];
    const best = rankToolsForCall(tools)[0];
    const main =
      env === ctx.env && ctx.main ? ctx.main : best ? { name: best.tool.name, input: best.input } : null;
    if (main) {
      tried.push("/call");
      const call = await follow(ctx, {
        method: "POST",
        path: "/call",
        sid,
        headers,
        json: { name: main.name, input: main.input },
        accept: "text/event-stream",
        stopAt: stopAtTerminal,
      });
      const c = call.answer.status === 200 ? analyzeCall(call.answer) : null;
      if (c?.terminal !== "end")
        broken.push({
          text: `POST /call: ${c ? describeEvents(c) : describeAnswer(call.answer, 60)}${call.via}`,
          firstEnv: false,
        });
    }
  } finally {
    await ctx.remove(sid).catch(() => {});
  }
  return { broken, tried };
}

/**
 * Paths without the environment segment, as the OpenReward client calls them without a `variant`:
 * on a server of one environment with and without `X-Deployment`, on a server of several with it
 * (naming one that is not the first, so a server that sends everything to its first environment
 * shows). Each answer is compared with the same request on the environment's own path; redirects
 * to the same server are followed, as the client's HTTP library does.
 */
export async function barePaths(ctx: CheckContext): Promise<Verdict> {
  if (!ctx.envs.length) return notExercised("no environment list");
  const { env, task } = await deployment(ctx);
  const variants: { label: string; headers: Record<string, string> }[] = [
    ...(ctx.singleEnv ? [{ label: "without X-Deployment", headers: {} }] : []),
    { label: `with X-Deployment: ${env}`, headers: { [DEPLOYMENT]: env } },
  ];
  const discovery = discoveryOf(task);
  const answersOf = async (name: string, only: Discovery[]) => {
    const out = new Map<string, unknown>();
    for (const d of only)
      out.set(
        d.path,
        bodyOf(await ctx.send({ method: d.method, path: envPath(name, d.path), json: d.body })),
      );
    return out;
  };
  const expected = await answersOf(env, discovery);
  let first: Map<string, unknown> | null = null;
  if (!ctx.singleEnv) {
    first = await answersOf(ctx.envs[0]!, discovery.slice(0, 2));
    if ([...first].every(([path, v]) => same(v, expected.get(path))))
      return notExercised(
        `${env} and ${ctx.envs[0]} list the same tools and splits: which environment answers a path without it cannot be told`,
      );
  }
  const f = new Findings();
  const worked: string[] = [];
  let tried: string[] = discovery.map((d) => `/${d.path}`);
  for (const v of variants) {
    const broken: Broken[] = [];
    for (const d of discovery) {
      const { answer, via } = await follow(ctx, {
        method: d.method,
        path: `/${d.path}`,
        json: d.body,
        headers: v.headers,
      });
      const got = bodyOf(answer);
      if (answer.status === 200 && got !== undefined && same(got, expected.get(d.path))) continue;
      const firstEnv = !ctx.singleEnv && via.includes(`308 to /${ctx.envs[0]}/`);
      const what =
        first?.has(d.path) && answer.status === 200 && same(got, first.get(d.path))
          ? `${ctx.envs[0]}'s answer`
          : describeAnswer(answer, 60);
      broken.push({ text: `${d.method} /${d.path}: ${what}${via}`, firstEnv });
    }
    if (task) {
      const s = await sessionPaths(ctx, env, task, v.headers);
      broken.push(...s.broken);
      tried = [...discovery.map((d) => `/${d.path}`), ...s.tried];
    }
    if (!broken.length) {
      worked.push(v.label);
      continue;
    }
    const ignored = broken.every((b) => b.firstEnv);
    f.breaksOpenReward(
      `${v.label}: ${broken.map((b) => b.text).join("; ")}`,
      ignored ? "x-deployment-ignored" : undefined,
    );
  }
  if (f.outcome === "pass")
    f.pass(
      `${list(tried, 8)} reach ${env} ${worked.join(" and ")}${task ? "" : ` (${env} has no task: the session paths were not tried)`}`,
    );
  return f.verdict();
}
