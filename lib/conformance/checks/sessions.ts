// Session checks (ors-http-api.txt /create_session, /create, /prompt, /task_tools, /ping, /delete;
// ors-sessions-episodes.txt "Episode Initialization"): session ids, /create by split + index, by
// task_spec and by default, the wait for setup, and the answers of a live session.
import {
  blocksSchema,
  describeZodError,
  envPath,
  listToolsOutputSchema,
  sidResponseSchema,
  statusResponseSchema,
} from "@/lib/ors/protocol";
import type { Verdict } from "../findings";
import { breaks, differs, expectStatus, Findings, failed, notExercised, pass } from "../findings";
import { formatMs } from "../labels";
import { describeAnswer, isSse, type ProbeAnswer, parseJson, snippet } from "../probe";
import { referenceCreateSession, referenceJsonProblem, referenceJsonRead } from "../reference-client";
import { type CheckContext, now } from "./context";
import { bodyOf, hex, isObject, list, toolsOf } from "./util";

const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export async function createSessionSse(ctx: CheckContext): Promise<Verdict> {
  const a = await ctx.createSessionSse();
  ctx.sseSessionAnswer = a;
  if (a.status >= 500) return failed(describeAnswer(a));
  const ref = referenceCreateSession(a);
  if (!ref.ok) return breaks(`${describeAnswer(a, 80)}: ${ref.failure}`);
  ctx.keepSid(ref.sid);
  if (ref.discoverySid === null)
    return breaks(
      "the sid came only in the end event's JSON: the reference client's discovery calls (list_splits, list_tasks, …) read it from event: task_id",
    );
  const events = a.frames.filter((f) => f.kind === "event").map((f) => (f.kind === "event" ? f.event : ""));
  return pass(
    `HTTP 200 ${isSse(a) ? "text/event-stream" : a.contentType}: ${events.join(", ")}; sid ${JSON.stringify(snippet(ref.sid, 40))}`,
  );
}

export async function createSessionJson(ctx: CheckContext): Promise<Verdict> {
  const a = await ctx.post("/create_session");
  if (a.status >= 500) return failed(describeAnswer(a));
  if (isSse(a) || /^event:/m.test(a.text)) {
    const ref = referenceCreateSession(a);
    if (ref.ok) ctx.keepSid(ref.sid);
    // The reference SDK's own answer: task_id with a uuid4, then an empty end.
    const events = a.frames.flatMap((f) => (f.kind === "event" ? [f] : []));
    if (
      events.length === 2 &&
      events[0]!.event === "task_id" &&
      UUID4.test(events[0]!.data) &&
      events[1]!.event === "end" &&
      events[1]!.data === ""
    )
      ctx.mark("create-session-sse");
    return differs(
      `answers SSE (${describeAnswer(a, 60)}) to a request that did not accept text/event-stream; the spec answers {"sid": ...}`,
      "create-session-always-sse",
    );
  }
  const body = parseJson(a);
  const parsed = sidResponseSchema.safeParse(body.ok ? body.value : undefined);
  if (a.status !== 200 || !parsed.success)
    return differs(`${describeAnswer(a, 80)} (the spec: 200 {"sid": "..."})`);
  ctx.keepSid(parsed.data.sid);
  return pass(`HTTP 200 ${describeAnswer(a, 80).replace(/^HTTP 200 /, "")}`);
}

export function judgeCreate(a: ProbeAnswer, sid: string, how: string): Verdict {
  if (a.status >= 500) return failed(`${how}: ${describeAnswer(a)}`);
  if (a.status >= 400) return breaks(`${how}: ${describeAnswer(a)}: the reference client raises`);
  const read = referenceJsonRead(a);
  if (!read.ok) return breaks(`${how}: ${read.failure} (${describeAnswer(a, 60)})`);
  const parsed = sidResponseSchema.safeParse(read.value);
  if (a.status !== 200 || !parsed.success)
    return differs(`${how}: ${describeAnswer(a, 80)} (the spec: 200 {"sid": ...})`);
  if (parsed.data.sid !== sid)
    return differs(`${how}: answered sid ${JSON.stringify(parsed.data.sid)}, not the X-Session-ID sent`);
  return pass(`${how}: HTTP 200 {"sid": …} in ${formatMs(a.ms)}`);
}

/** prompt, task_tools and ping at once right after /create: each must wait for setup. */
export async function setupWait(ctx: CheckContext, sid: string, env: string): Promise<void> {
  const t0 = now();
  let answers: [ProbeAnswer, ProbeAnswer, ProbeAnswer];
  try {
    answers = await Promise.all([
      ctx.get(envPath(env, "prompt"), sid),
      ctx.get(envPath(env, "task_tools"), sid),
      ctx.post("/ping", undefined, sid),
    ]);
  } catch (err) {
    const v = ctx.failureVerdict(err);
    for (const id of ["setup-wait", "prompt", "task-tools", "ping"] as const) ctx.record(id, v, now() - t0);
    return;
  }
  const [prompt, taskTools, ping] = answers;
  const ms = now() - t0;
  await ctx.check("setup-wait", () => {
    const f = new Findings();
    for (const [name, a] of [
      ["prompt", prompt],
      ["task_tools", taskTools],
      ["ping", ping],
    ] as const) {
      if (a.status >= 500) f.error(`${name}: ${describeAnswer(a, 80)}`);
      else if (a.status !== 200)
        f.breaks(
          `${name} right after /create: ${describeAnswer(a, 80)}: the reference client, which asks at once, raises`,
        );
    }
    if (f.outcome === "pass")
      f.pass(
        `HTTP 200 right after /create: prompt ${formatMs(prompt.ms)}, task_tools ${formatMs(taskTools.ms)}, ping ${formatMs(ping.ms)} (waiting itself shows only with a slow setup)`,
      );
    return f.verdict();
  });
  ctx.record("prompt", judgePrompt(prompt), ms);
  ctx.record("task-tools", judgeTaskTools(ctx, taskTools, env), ms);
  ctx.record("ping", judgePing(ping), ms);
}

function judgePrompt(a: ProbeAnswer): Verdict {
  if (a.status >= 500) return failed(describeAnswer(a));
  const problem = referenceJsonProblem(a, "prompt");
  if (problem) return breaks(`${problem} (${describeAnswer(a, 60)})`);
  const parsed = blocksSchema.safeParse(bodyOf(a));
  if (!parsed.success) return differs(`not valid blocks: ${describeZodError(parsed.error)}`);
  const kinds = parsed.data.map((b) =>
    b.type === "text" ? `text (${b.text.length} characters)` : `image (${b.mimeType})`,
  );
  return pass(`${parsed.data.length} block${parsed.data.length === 1 ? "" : "s"}: ${list(kinds, 4)}`);
}

function judgeTaskTools(ctx: CheckContext, a: ProbeAnswer, env: string): Verdict {
  if (a.status >= 500) return failed(describeAnswer(a));
  if (a.status === 404)
    return differs(`${describeAnswer(a, 80)}: no task_tools (the reference client falls back to /tools)`);
  const problem = referenceJsonProblem(a, "tools");
  if (problem) return breaks(`${problem} (${describeAnswer(a, 60)})`);
  const value = bodyOf(a);
  ctx.sessionTools = toolsOf(value);
  const parsed = listToolsOutputSchema.safeParse(value);
  if (!parsed.success) return differs(`not a valid tool list: ${describeZodError(parsed.error)}`);
  const shared = ctx.toolsByEnv.get(env) ?? [];
  const names = new Set(parsed.data.tools.map((t) => t.name));
  const missing = shared.filter((t) => !names.has(t.name)).map((t) => t.name);
  if (missing.length) return differs(`the shared tool(s) ${list(missing)} of /tools are missing`);
  const extra = parsed.data.tools.length - shared.filter((t) => names.has(t.name)).length;
  return pass(
    `${parsed.data.tools.length} tools (${shared.length} shared${extra > 0 ? `, ${extra} for this task` : ""})`,
  );
}

function judgePing(a: ProbeAnswer): Verdict {
  if (a.status >= 500) return failed(describeAnswer(a));
  if (a.status >= 400)
    return breaks(
      `${describeAnswer(a, 80)}: the reference client pings every 10 s and ends the session when a ping fails`,
    );
  const body = parseJson(a);
  const parsed = statusResponseSchema.safeParse(body.ok ? body.value : undefined);
  if (a.status !== 200 || !parsed.success || parsed.data.status !== "ok")
    return differs(`${describeAnswer(a, 80)} (the spec: 200 {"status": "ok"})`);
  return pass(`HTTP 200 {"status": "ok"}`);
}

/** POST /delete, then /delete_session, of the first session. */
export async function deleteSession(ctx: CheckContext, sid: string): Promise<Verdict> {
  const a = await ctx.remove(sid);
  const f = new Findings();
  const body = parseJson(a);
  if (a.status !== 200) f.differs(`POST /delete: ${describeAnswer(a, 80)}`);
  else if (!(body.ok && isObject(body.value) && body.value.sid === sid))
    f.differs(`POST /delete: ${describeAnswer(a, 80)} (the spec answers {"sid": "${snippet(sid, 12)}"})`);
  const d = await ctx.post("/delete_session", undefined, sid);
  if (d.status !== 200) f.differs(`POST /delete_session: ${describeAnswer(d, 80)}`);
  if (f.outcome === "pass") f.pass(`/delete: ${describeAnswer(a, 60)}; /delete_session: HTTP ${d.status}`);
  return f.verdict();
}

export async function createDefaultEnv(ctx: CheckContext): Promise<Verdict> {
  const first = ctx.envs[0];
  if (!first) return notExercised("no environment list");
  const task = await ctx.firstTask(first);
  if (!task) return notExercised(`${first}, the first environment, has no split with tasks`);
  const sid = await ctx.newSid();
  const a = await ctx.create(sid, { split: task.split, index: task.index }, first);
  try {
    const v = judgeCreate(a, sid, `no env_name, split ${JSON.stringify(task.split)}, index ${task.index}`);
    if (v.outcome !== "pass") return v;
    const p = await ctx.get(envPath(first, "prompt"), sid);
    if (p.status >= 500) return failed(`GET /${first}/prompt then: ${describeAnswer(p)}`);
    if (p.status !== 200)
      return breaks(
        `created, but GET /${first}/prompt then answered ${describeAnswer(p, 80)}: the reference client raises`,
      );
    return pass(`${v.observed}; GET /${first}/prompt: HTTP 200`);
  } finally {
    if (ctx.live.has(sid)) await ctx.remove(sid).catch(() => {});
  }
}

export async function createTaskSource(ctx: CheckContext): Promise<Verdict> {
  const none = ctx.noTask();
  if (none) return none;
  const env = ctx.env!;
  const f = new Findings();
  const attempt = async (body: Record<string, unknown>, what: string) => {
    const sid = `conformance-${hex(16)}`;
    const a = await ctx.create(sid, body, env);
    if (ctx.live.has(sid)) await ctx.remove(sid).catch(() => {});
    f.merge(expectStatus(a, 400, what));
  };
  await attempt(
    { env_name: env, task_spec: ctx.taskSpec ?? {}, split: ctx.task!.split, index: ctx.task!.index },
    "task_spec and split + index",
  );
  await attempt({ env_name: env }, "neither");
  return f.verdict();
}
