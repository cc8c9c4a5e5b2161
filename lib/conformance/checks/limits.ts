// Limit checks (ors-sessions-episodes.txt "Timeout Cleanup"): a session left idle for the server's
// configured limit is gone.
import { sleep } from "@/lib/ors/protocol";
import { differs, failed, notExercised, pass, type Verdict } from "../findings";
import { formatMs } from "../labels";
import { describeAnswer } from "../probe";
import { type CheckContext, now } from "./context";

const DEFAULT_IDLE_GRACE_MS = 6_000;

export async function idleTimeout(ctx: CheckContext): Promise<Verdict> {
  const idle = ctx.o.idleTimeoutMs;
  if (!idle)
    return notExercised(
      "give the server's idle limit with --idle-timeout <ms> to check it (the spec's default is 15 minutes)",
    );
  const grace = ctx.o.idleGraceMs ?? DEFAULT_IDLE_GRACE_MS;
  const left = ctx.overallMs - (now() - ctx.started);
  if (idle + grace + 5_000 > left)
    return failed(
      `waiting ${formatMs(idle + grace)} does not fit in the ${formatMs(left)} left of the overall time limit`,
    );
  const env = ctx.env;
  if (!env) return notExercised("no environment");
  const session = await ctx.sessionOn(env);
  if (!session.sid) return notExercised(`needs a session: ${session.problem}`);
  const t0 = now();
  await sleep(idle + grace, ctx.signal);
  const a = await ctx.post("/ping", undefined, session.sid);
  const waited = formatMs(now() - t0);
  if (a.status === 404) {
    ctx.live.delete(session.sid);
    return pass(`after ${waited} idle, /ping: ${describeAnswer(a, 80)}`);
  }
  if (a.status === 410) {
    ctx.live.delete(session.sid);
    return differs(`after ${waited} idle, /ping: HTTP 410 (the spec: an expired session is 404)`);
  }
  return differs(
    `after ${waited} idle (limit ${formatMs(idle)}), the session is still there: /ping ${describeAnswer(a, 60)}`,
  );
}
