// Error checks (ors-http-api.txt "Common Headers", "Standard HTTP Status Codes", the session
// endpoints' 400/404/410): a missing X-Session-ID, a session never created, a deleted session, and
// a path that is no ORS endpoint.
import { envPath } from "@/lib/ors/protocol";
import { analyzeCall, describeEvents } from "../calls";
import { differs, expectStatus, Findings, pass, type Verdict } from "../findings";
import { describeAnswer, isRedirect, type ProbeAnswer, snippet } from "../probe";
import type { CheckContext } from "./context";
import { hex } from "./util";

export async function missingSessionId(ctx: CheckContext): Promise<Verdict> {
  const f = new Findings();
  const env = ctx.env ?? ctx.envs[0];
  if (env) f.merge(expectStatus(await ctx.get(envPath(env, "prompt")), 400, `GET /${env}/prompt`));
  f.merge(expectStatus(await ctx.post("/ping"), 400, "POST /ping"));
  if (env && ctx.task)
    f.merge(
      expectStatus(
        await ctx.post("/create", { env_name: env, split: ctx.task.split, index: ctx.task.index }),
        400,
        "POST /create",
      ),
    );
  return f.verdict();
}

export async function unknownSession(ctx: CheckContext): Promise<Verdict> {
  const sid = `conformance-never-created-${hex(16)}`;
  const f = new Findings();
  const env = ctx.env ?? ctx.envs[0];
  if (env) f.merge(expectStatus(await ctx.get(envPath(env, "prompt"), sid), 404, "prompt"));
  f.merge(expectStatus(await ctx.post("/ping", undefined, sid), 404, "ping"));
  if (env) {
    const a = await ctx.call(env, sid, {
      name: ctx.main?.name ?? "submit",
      input: ctx.main?.input ?? {},
    });
    const c = a.status === 200 ? analyzeCall(a) : null;
    if (c?.terminal === "error")
      f.pass(`call: event: error ${JSON.stringify(snippet(c.errorData ?? "", 60))} (ors-sse.txt lists this)`);
    else f.merge(expectStatus(a, 404, "call"));
  }
  return f.verdict();
}

export async function deletedSession(ctx: CheckContext, sid: string, env: string): Promise<Verdict> {
  const f = new Findings();
  const gone = (a: ProbeAnswer, what: string) => {
    if (a.status === 410) f.pass(`${what}: HTTP 410`);
    else if (a.status === 404)
      f.differs(`${what}: HTTP 404 (the spec answers 410 Gone for a deleted session)`);
    else f.merge(expectStatus(a, 410, what));
  };
  gone(await ctx.get(envPath(env, "prompt"), sid), "prompt");
  gone(await ctx.get(envPath(env, "task_tools"), sid), "task_tools");
  const call = await ctx.call(env, sid, {
    name: ctx.main?.name ?? "submit",
    input: ctx.main?.input ?? {},
  });
  if (call.status === 200) {
    const c = analyzeCall(call);
    f.differs(`call: HTTP 200 with ${describeEvents(c)} (the spec answers 410 Gone)`);
  } else gone(call, "call");
  return f.verdict();
}

export async function deleteUnknownSession(ctx: CheckContext): Promise<Verdict> {
  const a = await ctx.post("/delete", undefined, `conformance-never-created-${hex(16)}`);
  if (a.status === 200)
    return differs(`${describeAnswer(a, 80)}: deleting a session never created succeeds (the spec: 404)`);
  return expectStatus(a, 404, "POST /delete");
}

export async function unknownPath(ctx: CheckContext): Promise<Verdict> {
  const path = `/conformance-no-such-endpoint-${hex()}`;
  const a = await ctx.get(path);
  if (isRedirect(a.status)) {
    if (ctx.singleEnv)
      return pass(
        `GET ${path}: ${describeAnswer(a, 0)}: the spec lets a single-environment server redirect to it`,
      );
    return differs(
      `GET ${path}: ${describeAnswer(a, 0)}: unknown paths are redirected on a server with ${ctx.envs.length} environments (the spec: 404)`,
    );
  }
  return expectStatus(a, 404, `GET ${path}`);
}
