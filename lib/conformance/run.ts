// The ORS conformance check (isomorphic, any `fetch`): runs every check of ./catalogue.ts against one
// server in the order a client meets the protocol (the checks are in ./checks/, one module per
// group), deleting the sessions it creates, and builds the report with each finding's owner.
import { judgePings } from "./calls";
import { CHECKS } from "./catalogue";
import {
  CheckContext,
  type ConformanceOptions,
  DEFAULT_MAX_TIME_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  now,
  TOOL_HINT,
} from "./checks/context";
import * as discovery from "./checks/discovery";
import * as errors from "./checks/errors";
import { sessionIds } from "./checks/isolation";
import { idleTimeout } from "./checks/limits";
import * as openreward from "./checks/openreward";
import { sessionFlow } from "./checks/session-flow";
import { createDefaultEnv, createSessionJson, createSessionSse, createTaskSource } from "./checks/sessions";
import { chunking, chunkSize, slowCall } from "./checks/tool-calls";
import { failed, notExercised } from "./findings";
import { formatMs } from "./labels";
import { decideOwnership, policyOf } from "./ownership";
import { type ConformanceReport, countOutcomes } from "./types";

export { type ConformanceOptions, DEFAULT_MAX_TIME_MS, DEFAULT_REQUEST_TIMEOUT_MS };

/** Every check in order; the slow ones (pings, the idle limit) run beside the others. */
async function execute(ctx: CheckContext): Promise<void> {
  await ctx.check("health", () => discovery.health(ctx));
  if (ctx.stopReason) return;
  await ctx.check("list-environments", () => discovery.listEnvironments(ctx));
  await ctx.check("base-url", () => discovery.baseUrl(ctx));
  await ctx.check("tools", () => discovery.tools(ctx));
  if (!ctx.stopReason) await discovery.pickTarget(ctx).catch(() => {});
  await ctx.check("splits", () => discovery.splits(ctx));
  await ctx.check("num-tasks", () => discovery.numTasks(ctx));
  await ctx.check("tasks", () => discovery.tasks(ctx));
  await ctx.check("task", () => discovery.task(ctx));
  await ctx.check("task-range", () => discovery.taskRange(ctx));
  await ctx.check("invalid-split", () => discovery.invalidSplit(ctx));
  await ctx.check("invalid-index", () => discovery.invalidIndex(ctx));
  await ctx.check("task-negative-index", () => discovery.negativeIndex(ctx));
  await ctx.check("unknown-environment", () => discovery.unknownEnvironment(ctx));

  // Slow parts run beside the rest: a slow tool for the pings, a session left idle.
  const slow = slowCall(ctx).catch(() => {});
  const idle = ctx.check("idle-timeout", () => idleTimeout(ctx));
  ctx.background.push(slow, idle);

  await ctx.check("create-session-sse", () => createSessionSse(ctx));
  await ctx.check("create-session-json", () => createSessionJson(ctx));
  await sessionFlow(ctx);
  await ctx.check("create-default-env", () => createDefaultEnv(ctx));
  await ctx.check("create-task-source", () => createTaskSource(ctx));
  await ctx.check("missing-session-id", () => errors.missingSessionId(ctx));
  await ctx.check("unknown-session", () => errors.unknownSession(ctx));
  await ctx.check("delete-unknown-session", () => errors.deleteUnknownSession(ctx));
  await ctx.check("unknown-path", () => errors.unknownPath(ctx));
  await ctx.check("isolation-session-ids", () => sessionIds(ctx));
  await ctx.check("call-chunking", () => chunking(ctx));
  await ctx.check("call-chunk-size", () => chunkSize(ctx));
  await ctx.check("openreward-bare-paths", () => openreward.barePaths(ctx));
  await ctx.check("openreward-env-name", () => openreward.envName(ctx));
  await ctx.check("openreward-create-session-sse", () => openreward.createSessionSse(ctx));

  await slow;
  await ctx.check("call-pings", () =>
    judgePings(ctx.calls, `No tool that runs over 10 s was found. ${TOOL_HINT}`),
  );
  await idle;
}

/** The report: every check of the catalogue, the ones never reached said so. */
function finish(ctx: CheckContext): ConformanceReport {
  // Out of time is a failure of the check (exit code 1); stopped by the caller is not.
  const reason = (ctx.signal.reason as Error | undefined)?.message ?? "stopped";
  const unreached = ctx.stopReason
    ? notExercised(`not reached: ${ctx.stopReason}`)
    : ctx.crashed && !ctx.signal.aborted
      ? failed(`not reached: the check broke off (${ctx.crashed})`)
      : ctx.signal.aborted
        ? (ctx.signal.reason as Error | undefined)?.name === "TimeoutError"
          ? failed(`not reached: ${reason}`)
          : notExercised(`not reached: ${reason}`)
        : notExercised("not reached");
  for (const c of CHECKS) if (!ctx.results.has(c.id)) ctx.record(c.id, unreached, 0);
  const policy = policyOf(ctx.o);
  const { results, framework } = decideOwnership(
    CHECKS.map((c) => ctx.results.get(c.id)!),
    ctx.tags,
    ctx.markers,
    policy,
  );
  const counts = countOutcomes(results);
  const ok = counts["breaks-reference-client"] === 0 && counts.error === 0;
  const findings = results.filter((r) => r.owner !== null);
  const finished = new Date();
  return {
    format: "ors-conformance/1",
    baseUrl: ctx.probe.baseUrl,
    startedAt: ctx.startedAt.toISOString(),
    finishedAt: finished.toISOString(),
    durationMs: Math.round(now() - ctx.started),
    target: { environment: ctx.env, task: ctx.task, tool: ctx.main },
    summary: {
      total: results.length,
      counts,
      ok,
      clean: ok && counts["differs-from-spec"] === 0,
      owners: {
        author: findings.filter((r) => r.owner === "author").length,
        framework: findings.filter((r) => r.owner === "framework").length,
      },
      waived: findings.filter((r) => r.waived).length,
      passed: !results.some((r) => r.counted),
    },
    framework,
    policy,
    results,
    quality: null,
    probe: null,
  };
}

/**
 * Runs the conformance check against one ORS server and returns the report; `onResult` sees each
 * result as it is decided. Never throws for anything the server does; deletes the sessions it
 * created, even when stopped or out of time.
 *
 * @example
 * const report = await runConformanceCheck({ baseUrl: "http://127.0.0.1:8080" });
 * if (!report.summary.passed) process.exitCode = 1;
 */
export async function runConformanceCheck(options: ConformanceOptions): Promise<ConformanceReport> {
  const maxTimeMs = options.maxTimeMs ?? DEFAULT_MAX_TIME_MS;
  const overall = new AbortController();
  const timer = setTimeout(
    () =>
      overall.abort(
        new DOMException(`the overall time limit of ${formatMs(maxTimeMs)} ran out`, "TimeoutError"),
      ),
    maxTimeMs,
  );
  const signal = options.signal ? AbortSignal.any([options.signal, overall.signal]) : overall.signal;
  const ctx = new CheckContext(options, signal, maxTimeMs);
  try {
    await execute(ctx);
  } catch (err) {
    // Checks never throw; this is a stop (or a bug) between them: the rest is reported unreached.
    ctx.crashed = (err as Error)?.message ?? String(err);
  } finally {
    await Promise.allSettled(ctx.background);
    clearTimeout(timer);
    await ctx.cleanup();
  }
  return finish(ctx);
}
