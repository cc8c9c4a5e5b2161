// The main sessions of a run, in the order a client uses them: S1 created by split + index (as the
// reference client does) for setup, the calls and deletion; S2 created with a task_spec for the
// isolation checks. Every check that needs these sessions is decided here, or skipped with why.

import { envPath } from "@/lib/ors/protocol";
import { judgeFraming } from "../calls";
import type { CheckId } from "../catalogue";
import { breaks, expectStatus, notExercised, type Verdict } from "../findings";
import { describeAnswer } from "../probe";
import { type CheckContext, TOOL_HINT } from "./context";
import { deletedSession } from "./errors";
import { deleteIsolation, taskIdIsolation } from "./isolation";
import { deleteSession, judgeCreate, setupWait } from "./sessions";
import {
  badInput,
  chooseMainTool,
  envMismatch,
  invalidBody,
  malformedBody,
  reconnect,
  reconnectUnknown,
  unknownTool,
} from "./tool-calls";

/** The checks decided on the main sessions. */
const DEPENDENT: CheckId[] = [
  "create-split-index",
  "setup-wait",
  "prompt",
  "task-tools",
  "ping",
  "call-unknown-tool",
  "call-bad-input",
  "call-framing",
  "call-reconnect",
  "call-reconnect-unknown",
  "call-env-mismatch",
  "malformed-body",
  "invalid-body",
  "create-duplicate",
  "create-task-spec",
  "isolation-task-id",
  "delete",
  "isolation-delete",
  "deleted-session",
];

/** Creates, uses and deletes the main sessions: S1 (split + index) and S2 (task_spec). */
export async function sessionFlow(ctx: CheckContext): Promise<void> {
  const env = ctx.env;
  const none = ctx.noTask();
  if (ctx.stopReason || ctx.signal.aborted) return;
  if (none || !env) return ctx.skip(DEPENDENT, none ?? notExercised("no environment"));
  const task = ctx.task!;

  // S1: split + index, as the reference client creates sessions.
  const s1 = await ctx.newSid();
  const flags = { created: false, s2Ready: false, taskId: null as string | null };
  await ctx.check("create-split-index", async () => {
    const a = await ctx.create(s1, { env_name: env, split: task.split, index: task.index }, env);
    flags.created = a.status === 200;
    return judgeCreate(a, s1, `split ${JSON.stringify(task.split)}, index ${task.index}`);
  });
  if (!flags.created) {
    return ctx.skip(
      DEPENDENT.filter((id) => id !== "create-split-index"),
      notExercised("needs a session: POST /create failed (see create-split-index)"),
    );
  }

  await setupWait(ctx, s1, env);
  chooseMainTool(ctx);

  await ctx.check("call-unknown-tool", () => unknownTool(ctx, s1, env));
  await ctx.check("call-bad-input", () => badInput(ctx, s1, env));
  await ctx.check("call-framing", async () => {
    if (!ctx.main) return notExercised(`no tool whose input could be made up. ${TOOL_HINT}`);
    const a = await ctx.call(env, s1, { name: ctx.main.name, input: ctx.main.input });
    const analysis = ctx.observe(`${env}/${ctx.main.name}`, a);
    flags.taskId = analysis.taskId;
    ctx.mainAnalysis = analysis;
    return judgeFraming(analysis);
  });
  await ctx.check("call-reconnect", () => reconnect(ctx, s1, env, flags.taskId));
  await ctx.check("call-reconnect-unknown", () => reconnectUnknown(ctx, s1, env));
  await ctx.check("call-env-mismatch", () => envMismatch(ctx, s1, env));
  await ctx.check("malformed-body", () => malformedBody(ctx, s1, env));
  await ctx.check("invalid-body", () => invalidBody(ctx, s1, env));
  await ctx.check("create-duplicate", async () => {
    const a = await ctx.post("/create", { env_name: env, split: task.split, index: task.index }, s1);
    return expectStatus(a, 400, "the same X-Session-ID again");
  });

  // S2: task_spec, used for isolation.
  const s2 = await ctx.newSid();
  await ctx.check("create-task-spec", async (): Promise<Verdict> => {
    if (!ctx.taskSpec) return notExercised("no task to pass (POST /task gave none)");
    const a = await ctx.create(s2, { env_name: env, task_spec: ctx.taskSpec, secrets: {} }, env);
    const v = judgeCreate(a, s2, "task_spec");
    if (a.status !== 200) return v;
    const p = await ctx.get(envPath(env, "prompt"), s2);
    flags.s2Ready = p.status === 200;
    if (!flags.s2Ready)
      return breaks(`created, but GET /${env}/prompt then answered ${describeAnswer(p, 80)}`);
    return v;
  });
  if (!flags.s2Ready && !ctx.live.has(s2)) {
    // Isolation still needs a second session: make it with split + index.
    const a = await ctx.create(s2, { env_name: env, split: task.split, index: task.index }, env);
    flags.s2Ready = a.status === 200;
  }

  await ctx.check("isolation-task-id", () => taskIdIsolation(ctx, env, s2, flags.taskId, flags.s2Ready));
  await ctx.check("delete", () => deleteSession(ctx, s1));
  await ctx.check("isolation-delete", () => deleteIsolation(ctx, env, s2, flags.s2Ready));
  await ctx.check("deleted-session", () => deletedSession(ctx, s1, env));
  if (ctx.live.has(s2)) await ctx.remove(s2).catch(() => {});
}
