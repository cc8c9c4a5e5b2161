// Error checks (ors-http-api.txt "Common Headers", "Standard HTTP Status Codes", the session
// endpoints' 400/404/410): a missing X-Session-ID, a session never created, a deleted session, and
// a path that is no ORS endpoint.
import { envPath, readErrorDetail } from "@/lib/ors/protocol";
import { analyzeCall, describeEvents } from "../calls";
import { differs, expectStatus, Findings, pass, type Verdict } from "../findings";
import type { MarkerId } from "../frameworks";
import { describeAnswer, isRedirect, type ProbeAnswer, snippet } from "../probe";
import type { CheckContext } from "./context";
import { bodyOf, hex, same } from "./util";

/**
 * Judges answers into `f` that must have `status`; one with the reference SDK's own `detail` marks
 * `marker` (which tells the framework).
 */
function expectingStatus(ctx: CheckContext, f: Findings, status: number, detail: string, marker: MarkerId) {
  return (a: ProbeAnswer, what: string) => {
    if (a.status === status && readErrorDetail(a.text) === detail) ctx.mark(marker);
    f.merge(expectStatus(a, status, what));
  };
}

export async function missingSessionId(ctx: CheckContext): Promise<Verdict> {
  const f = new Findings();
  const env = ctx.env ?? ctx.envs[0];
  const judge = expectingStatus(ctx, f, 400, "X-Session-ID header is required", "missing-sid-detail");
  if (env) judge(await ctx.get(envPath(env, "prompt")), `GET /${env}/prompt`);
  judge(await ctx.post("/ping"), "POST /ping");
  if (env && ctx.task)
    judge(
      await ctx.post("/create", { env_name: env, split: ctx.task.split, index: ctx.task.index }),
      "POST /create",
    );
  return f.verdict();
}

export async function unknownSession(ctx: CheckContext): Promise<Verdict> {
  const sid = `conformance-never-created-${hex(16)}`;
  const f = new Findings();
  const env = ctx.env ?? ctx.envs[0];
  const judge = expectingStatus(ctx, f, 404, "Active environment not found", "unknown-session-detail");
  if (env) judge(await ctx.get(envPath(env, "prompt"), sid), "prompt");
  judge(await ctx.post("/ping", undefined, sid), "ping");
  if (env) {
    const a = await ctx.call(env, sid, ctx.anyCall);
    const c = a.status === 200 ? analyzeCall(a) : null;
    if (c?.terminal === "error")
      f.pass(`call: event: error ${JSON.stringify(snippet(c.errorData ?? "", 60))} (ors-sse.txt lists this)`);
    else judge(a, "call");
  }
  return f.verdict();
}

export async function deletedSession(ctx: CheckContext, sid: string, env: string): Promise<Verdict> {
  const f = new Findings();
  const gone = (a: ProbeAnswer, what: string) => {
    if (a.status === 410) f.pass(`${what}: HTTP 410`);
    else if (a.status === 404)
      f.differs(
        `${what}: HTTP 404 (the spec answers 410 Gone for a deleted session)`,
        "deleted-session-forgotten",
      );
    else f.merge(expectStatus(a, 410, what));
  };
  gone(await ctx.get(envPath(env, "prompt"), sid), "prompt");
  gone(await ctx.get(envPath(env, "task_tools"), sid), "task_tools");
  const call = await ctx.call(env, sid, ctx.anyCall);
  if (call.status === 200) {
    const c = analyzeCall(call);
    f.differs(`call: HTTP 200 with ${describeEvents(c)} (the spec answers 410 Gone)`);
  } else gone(call, "call");
  return f.verdict();
}

export async function deleteUnknownSession(ctx: CheckContext): Promise<Verdict> {
  const sid = `conformance-never-created-${hex(16)}`;
  const a = await ctx.post("/delete", undefined, sid);
  if (a.status === 200) {
    if (same(bodyOf(a), { sid })) ctx.mark("delete-unknown-200");
    return differs(
      `${describeAnswer(a, 80)}: deleting a session never created succeeds (the spec: 404)`,
      "delete-unknown-200",
    );
  }
  return expectStatus(a, 404, "POST /delete");
}

export async function unknownPath(ctx: CheckContext): Promise<Verdict> {
  const path = `/conformance-no-such-endpoint-${hex()}`;
  const a = await ctx.get(path);
  if (isRedirect(a.status)) {
    if (a.status === 308 && ctx.envs[0] && a.location === `/${ctx.envs[0]}${path}`)
      ctx.mark("redirect-default-env");
    if (ctx.singleEnv)
      return pass(
        `GET ${path}: ${describeAnswer(a, 0)}: the spec lets a single-environment server redirect to it`,
      );
    return differs(
      `GET ${path}: ${describeAnswer(a, 0)}: unknown paths are redirected on a server with ${ctx.envs.length} environments (the spec: 404)`,
      a.status === 308 ? "redirect-default-env" : undefined,
    );
  }
  return expectStatus(a, 404, `GET ${path}`);
}
