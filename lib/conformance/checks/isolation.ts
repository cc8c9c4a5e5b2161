// Isolation checks (ors-sessions-episodes.txt "Concurrent Sessions"): fresh session ids, task ids
// that belong to their session, and a deleted session that leaves the others working.
import { envPath } from "@/lib/ors/protocol";
import { analyzeCall, describeEvents } from "../calls";
import { differs, notExercised, pass, type Verdict } from "../findings";
import { describeAnswer, snippet } from "../probe";
import type { CheckContext } from "./context";

export function sessionIds(ctx: CheckContext): Verdict {
  const sids = ctx.sids.filter(Boolean);
  if (sids.length < 2) return notExercised(`only ${sids.length} session id(s) came from /create_session`);
  const unique = new Set(sids);
  if (unique.size !== sids.length)
    return differs(`${sids.length} ids from /create_session, only ${unique.size} different`);
  return pass(`${sids.length} ids from /create_session, all different`);
}

/** The second session re-posts the first session's task_id: it must not get that result. */
export async function taskIdIsolation(
  ctx: CheckContext,
  env: string,
  otherSid: string,
  taskId: string | null,
  otherReady: boolean,
): Promise<Verdict> {
  if (!taskId) return notExercised("the call gave no task_id");
  if (!otherReady) return notExercised("no second session");
  const main = ctx.main!;
  const a = await ctx.call(env, otherSid, { name: main.name, input: main.input, task_id: taskId });
  const got = analyzeCall(a);
  if (got.terminal === "end" && ctx.mainAnalysis?.json !== null && got.json === ctx.mainAnalysis?.json)
    return differs(
      `another session re-posting the first session's task_id got its result (${describeEvents(got)})`,
      "task-id-not-bound",
    );
  if (got.terminal === "end")
    return differs(
      `another session re-posting the first session's task_id got an end event: ${snippet(got.json ?? "", 80)}`,
    );
  if (got.terminal === "error")
    return pass(`the other session gets event: error ${JSON.stringify(snippet(got.errorData ?? "", 80))}`);
  if (a.status >= 400 && a.status < 500) return pass(`the other session gets ${describeAnswer(a, 80)}`);
  return differs(`the other session gets ${describeAnswer(a, 80)}`);
}

/** After the first session is deleted, the second still answers /ping and /prompt. */
export async function deleteIsolation(
  ctx: CheckContext,
  env: string,
  otherSid: string,
  otherReady: boolean,
): Promise<Verdict> {
  if (!otherReady) return notExercised("no second session");
  const ping = await ctx.post("/ping", undefined, otherSid);
  const prompt = await ctx.get(envPath(env, "prompt"), otherSid);
  if (ping.status === 200 && prompt.status === 200)
    return pass("after deleting the first session, the second still answers /ping and /prompt (HTTP 200)");
  return differs(
    `after deleting the first session, the second answers /ping ${describeAnswer(ping, 60)}, /prompt ${describeAnswer(prompt, 60)}`,
  );
}
