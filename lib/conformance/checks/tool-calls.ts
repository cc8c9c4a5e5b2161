// Tool-call checks (ors-sse.txt; ors-http-api.txt POST /{env_name}/call): the choice of the tool to
// call, tool logic errors for an unknown tool and a bad input, reconnection by task_id, bodies that
// are not JSON or miss a field, results large enough to be chunked, and a tool slow enough to ping.
import { envPath, SSE_CHUNK_SIZE, type ToolSpec } from "@/lib/ors/protocol";
import {
  analyzeCall,
  type CallAnalysis,
  codePoints,
  describeEvents,
  describeResult,
  judgeChunking,
  judgeChunkSize,
} from "../calls";
import type { Verdict } from "../findings";
import { breaks, differs, expectStatus, Findings, failed, notExercised, pass } from "../findings";
import * as inputs from "../inputs";
import { formatMs } from "../labels";
import { describeAnswer, type ProbeAnswer, snippet } from "../probe";
import { type CheckContext, DEFAULT_REQUEST_TIMEOUT_MS, type ObservedCall, TOOL_HINT } from "./context";
import { hex, list } from "./util";

/** Tool calls at most when looking for a large result. */
const MAX_LARGE_TRIES = 8;
const LARGE_HINT = "Name a tool whose result is larger with --tool NAME --input JSON.";

/** The tool the call checks use: given, else the best suited of the session's tools. */
export function chooseMainTool(ctx: CheckContext): void {
  const tools = ctx.sessionTools?.length ? ctx.sessionTools : (ctx.toolsByEnv.get(ctx.env!) ?? []);
  const given = ctx.o.tool;
  if (given) {
    let input = given.input;
    if (input === undefined) {
      const spec = tools.find((t) => t.name === given.name);
      const made = spec ? inputs.minimalInput(spec.input_schema) : null;
      input = made?.ok ? made.value : {};
    }
    ctx.main = { name: given.name, input };
    return;
  }
  const best = inputs.rankToolsForCall(tools)[0];
  ctx.main = best ? { name: best.tool.name, input: best.input } : null;
}

/**
 * An unknown tool: the spec makes it an error of the call (ors-http-api.txt: 404 "tool not found";
 * ors-sse.txt "HTTP-Level Errors": "Tool name not recognized"), not a tool logic error.
 */
export async function unknownTool(ctx: CheckContext, sid: string, env: string): Promise<Verdict> {
  const name = `no_such_tool_${hex()}`;
  const a = await ctx.call(env, sid, { name, input: {} });
  const v = judgeToolError(a, "an unknown tool", true);
  if (v.deviations?.includes("unknown-tool-ok-false")) {
    const value = analyzeCall(a).value as { error?: unknown } | undefined;
    if (value?.error === `'${name}' is not a valid tool`) ctx.mark("unknown-tool-message");
  }
  return v;
}

/**
 * An answer to a call the server must refuse: an unknown tool (`httpErrorIsSpec`: a 404 or an
 * error event), or an input its schema refuses (a tool logic error, `{"ok": false}` in end).
 */
function judgeToolError(a: ProbeAnswer, what: string, httpErrorIsSpec: boolean): Verdict {
  if (a.status >= 500) return failed(`${what}: ${describeAnswer(a)}`);
  if (a.status === 400 || a.status === 404)
    return httpErrorIsSpec || a.status === 400
      ? pass(`${what}: ${describeAnswer(a, 80)} (the spec also lists this status for /call)`)
      : differs(`${what}: ${describeAnswer(a, 80)}`);
  if (a.status !== 200) return differs(`${what}: ${describeAnswer(a, 80)}`);
  const c = analyzeCall(a);
  if (c.terminal === "error")
    return httpErrorIsSpec
      ? pass(
          `${what}: event: error ${JSON.stringify(snippet(c.errorData ?? "", 80))} (ors-sse.txt lists this as an HTTP-level error)`,
        )
      : differs(
          `${what}: event: error ${JSON.stringify(snippet(c.errorData ?? "", 80))}; the spec makes it a tool logic error ({"ok": false} in end)`,
        );
  if (c.terminal !== "end")
    return breaks(`${what}: ${describeEvents(c)}: the reference client gets no result`);
  if (!c.reference.ok) return breaks(`${what}: the reference client fails: ${c.reference.failure}`);
  const v = c.value as { ok?: unknown; error?: unknown } | undefined;
  if (v?.ok === false && typeof v.error === "string" && httpErrorIsSpec)
    return differs(
      `${what}: HTTP 200, end {"ok": false, "error": ${JSON.stringify(snippet(v.error, 80))}}: a tool logic error where the spec makes it an error of the call (404 "tool not found", or event: error)`,
      "unknown-tool-ok-false",
    );
  if (v?.ok === false && typeof v.error === "string")
    return pass(`${what}: end {"ok": false, "error": ${JSON.stringify(snippet(v.error, 80))}}`);
  if (v?.ok === true) return differs(`${what}: accepted (${describeResult(c.value)})`);
  return differs(`${what}: end ${snippet(c.json ?? "", 100)} is not {"ok": false, "error": "..."}`);
}

export async function badInput(ctx: CheckContext, sid: string, env: string): Promise<Verdict> {
  const tools = ctx.sessionTools?.length ? ctx.sessionTools : (ctx.toolsByEnv.get(env) ?? []);
  const candidates = ctx.main ? [...tools.filter((t) => t.name === ctx.main!.name), ...tools] : tools;
  for (const tool of candidates) {
    const bad = inputs.invalidInput(tool.input_schema);
    if (!bad) continue;
    const a = await ctx.call(env, sid, { name: tool.name, input: bad.value });
    return judgeToolError(a, `${tool.name} ${bad.why}`, false);
  }
  return notExercised("no tool has an input schema that refuses some input (every tool takes any object)");
}

export async function reconnect(
  ctx: CheckContext,
  sid: string,
  env: string,
  taskId: string | null,
): Promise<Verdict> {
  const first = ctx.mainAnalysis;
  if (!ctx.main || !first) return notExercised("no call was made");
  if (!taskId) return notExercised("the call's stream had no task_id event");
  if (first.terminal !== "end") return notExercised("the call did not end with a result");
  const a = await ctx.call(env, sid, { name: ctx.main.name, input: ctx.main.input, task_id: taskId });
  const again = analyzeCall(a);
  if (a.status >= 500) return failed(describeAnswer(a));
  if (a.status !== 200)
    return differs(`re-posting task_id ${JSON.stringify(snippet(taskId, 40))}: ${describeAnswer(a, 80)}`);
  if (again.terminal === "error")
    return differs(
      `re-posting the task_id of a call completed ${formatMs(a.headersMs)} ago: event: error ${JSON.stringify(snippet(again.errorData ?? "", 80))} (results linger 60 s)`,
    );
  if (again.terminal !== "end") return differs(`re-posting the task_id: ${describeEvents(again)}`);
  const f = new Findings();
  if (again.json !== first.json)
    f.differs(
      `a different result came back (${again.json?.length} characters instead of ${first.json?.length})`,
    );
  if (!again.reference.ok) f.breaks(`the reference client fails on the replay: ${again.reference.failure}`);
  if (again.taskId !== null && again.taskId !== taskId)
    f.differs(`the replay's task_id event says ${JSON.stringify(again.taskId)}`);
  if (f.outcome === "pass")
    f.pass(`the same ${first.json?.length}-character result replayed (${describeEvents(again)})`);
  return f.verdict();
}

export async function reconnectUnknown(ctx: CheckContext, sid: string, env: string): Promise<Verdict> {
  if (!ctx.main) return notExercised("no tool to call");
  const taskId = `conformance-unknown-${hex(16)}`;
  const a = await ctx.call(env, sid, { name: ctx.main.name, input: ctx.main.input, task_id: taskId });
  if (a.status >= 500) return failed(describeAnswer(a));
  if (a.status !== 200) return differs(`${describeAnswer(a, 80)} (the spec: an error event)`);
  const c = analyzeCall(a);
  if (c.terminal === "error" && c.taskId === null)
    return differs(
      `${describeEvents(c)} without a task_id event first (the spec: task_id is always sent first)`,
      "reconnect-unknown-no-task-id",
    );
  if (c.terminal === "error") return pass(`${describeEvents(c)}`);
  if (c.terminal === "end")
    return differs(
      `answered a result for an unknown task_id (${describeResult(c.value)}): the spec answers event: error`,
    );
  return differs(`${describeEvents(c)} (the spec: an error event)`);
}

/** Each request must be answered 400 (in turn): the verdict of all of them. */
async function all400(requests: [request: () => Promise<ProbeAnswer>, what: string][]): Promise<Verdict> {
  const f = new Findings();
  for (const [request, what] of requests) f.merge(expectStatus(await request(), 400, what));
  return f.verdict();
}

/** POST /{env}/call in session `sid` with `body` (raw text, or JSON), as the reference client asks it. */
function postCall(
  ctx: CheckContext,
  sid: string,
  env: string,
  body: { rawBody: string } | { json: unknown },
) {
  return ctx.send({ method: "POST", path: envPath(env, "call"), sid, accept: "text/event-stream", ...body });
}

export function malformedBody(ctx: CheckContext, sid: string, env: string): Promise<Verdict> {
  const rawBody = '{"name": ';
  return all400([
    [() => postCall(ctx, sid, env, { rawBody }), `POST /${env}/call`],
    [
      () => ctx.send({ method: "POST", path: "/create", sid: `conformance-${hex(16)}`, rawBody }),
      "POST /create",
    ],
    [() => ctx.send({ method: "POST", path: envPath(env, "tasks"), rawBody }), `POST /${env}/tasks`],
  ]);
}

export function invalidBody(ctx: CheckContext, sid: string, env: string): Promise<Verdict> {
  return all400([
    [() => postCall(ctx, sid, env, { json: { name: ctx.anyCall.name } }), `/${env}/call without "input"`],
    [
      () => ctx.post(envPath(env, "task"), { split: ctx.task?.split ?? "train" }),
      `/${env}/task without "index"`,
    ],
  ]);
}

/**
 * A call on another environment's path with this session (POST /{other}/call): the spec lists
 * "environment mismatch" among the 404s of /call.
 */
export async function envMismatch(ctx: CheckContext, sid: string, env: string): Promise<Verdict> {
  const other = ctx.envs.find((e) => e !== env);
  if (!other)
    return notExercised("the server hosts one environment: there is no other one to name in the path");
  if (!ctx.main) return notExercised(`no tool to call. ${TOOL_HINT}`);
  const a = await ctx.call(other, sid, { name: ctx.main.name, input: ctx.main.input });
  const what = `POST /${other}/call with a session of ${env}`;
  if (a.status >= 500) return failed(`${what}: ${describeAnswer(a)}`);
  if (a.status !== 200) return expectStatus(a, 404, what);
  const c = analyzeCall(a);
  if (c.terminal === "error")
    return pass(`${what}: event: error ${JSON.stringify(snippet(c.errorData ?? "", 80))}`);
  if (c.terminal === "end")
    return differs(
      `${what}: HTTP 200, answered by the session's environment (${describeResult(c.value)}); the spec: 404 (environment mismatch)`,
      "env-mismatch-accepted",
    );
  return differs(`${what}: ${describeEvents(c)}; the spec: 404 (environment mismatch)`);
}

/** The call with a result over 4096 characters seen so far (call-chunking looks for one). */
function bigCall(ctx: CheckContext): ObservedCall | undefined {
  return ctx.calls.find((c) => c.analysis.json !== null && codePoints(c.analysis.json) > SSE_CHUNK_SIZE);
}

/** Pieces counted in bytes, judged on the large result call-chunking found. */
export function chunkSize(ctx: CheckContext): Verdict {
  const big = bigCall(ctx);
  if (!big)
    return notExercised(`no result over ${SSE_CHUNK_SIZE} characters (see call-chunking). ${LARGE_HINT}`);
  return judgeChunkSize(big.analysis, big.label);
}

/**
 * Looks for a result over 4096 characters: among the calls made so far, else by calling tools
 * that look large or take no input (in throwaway sessions, one per environment, after /prompt).
 */
export async function chunking(ctx: CheckContext): Promise<Verdict> {
  const isBig = (c: { analysis: CallAnalysis }) =>
    c.analysis.json !== null && codePoints(c.analysis.json) > SSE_CHUNK_SIZE;
  const big = bigCall(ctx);
  if (big) return judgeChunking(big.analysis, big.label);
  const tried = ctx.calls
    .filter((c) => c.analysis.json !== null)
    .map((c) => `${c.label} (${c.analysis.json!.length} characters)`);
  const called = new Set(ctx.calls.map((c) => c.label.split(" ")[0]));
  const candidates: { env: string; tool: ToolSpec; input: Record<string, unknown>; rank: number }[] = [];
  for (const env of ctx.envsTargetFirst())
    for (const tool of ctx.toolsByEnv.get(env) ?? []) {
      if (inputs.looksSlow(tool) || called.has(`${env}/${tool.name}`)) continue;
      const large = inputs.looksLarge(tool);
      if (!large && !inputs.takesNoInput(tool)) continue;
      const input = inputs.minimalInput(tool.input_schema);
      if (input.ok) candidates.push({ env, tool, input: input.value, rank: large ? 0 : 1 });
    }
  candidates.sort((a, b) => a.rank - b.rank);
  const sessions = new Map<string, string | null>();
  try {
    for (const { env, tool, input } of candidates.slice(0, MAX_LARGE_TRIES)) {
      if (!sessions.has(env)) {
        const s = await ctx.sessionOn(env);
        sessions.set(env, s.sid);
        if (!s.sid) tried.push(`${env} (${s.problem})`);
      }
      const sid = sessions.get(env);
      if (!sid) continue;
      const a = await ctx.call(env, sid, { name: tool.name, input });
      const label = `${env}/${tool.name} ${JSON.stringify(input)}`;
      const analysis = ctx.observe(label, a);
      if (isBig({ analysis })) return judgeChunking(analysis, label);
      tried.push(
        `${env}/${tool.name} (${analysis.json !== null ? `${analysis.json.length} characters` : describeEvents(analysis)})`,
      );
    }
  } finally {
    for (const sid of sessions.values()) if (sid) await ctx.remove(sid).catch(() => {});
  }
  return notExercised(
    `no result over ${SSE_CHUNK_SIZE} characters${tried.length ? `: tried ${list(tried, 5)}` : ""}. ${LARGE_HINT}`,
  );
}

/** Calls a tool that looks slow (with a duration input) so its stream shows keep-alive pings. */
export async function slowCall(ctx: CheckContext): Promise<void> {
  const seconds = ctx.o.slowToolSeconds ?? 12;
  if (seconds <= 0 || ctx.stopReason) return;
  for (const env of ctx.envsTargetFirst()) {
    for (const tool of ctx.toolsByEnv.get(env) ?? []) {
      if (!inputs.looksSlow(tool)) continue;
      const input = inputs.slowInput(tool, seconds);
      if (!input) continue;
      const session = await ctx.sessionOn(env);
      if (!session.sid) return;
      try {
        const limit = (ctx.o.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS) + seconds * 1000;
        const a = await ctx.call(env, session.sid, { name: tool.name, input }, limit);
        ctx.observe(`${env}/${tool.name} ${JSON.stringify(input)}`, a);
      } finally {
        await ctx.remove(session.sid).catch(() => {});
      }
      return;
    }
  }
}
