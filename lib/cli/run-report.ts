// What `run` reports (docs/runs.md "CLI"): the plain summary (outcomes, success over the scored
// episodes with the unscored beside, pass@k, the learning signal, durations, the reward histogram,
// errors), the JUnit report (a test case per task), the progress bar, and the exit code.
import fs from "node:fs";
import type { Playground } from "@/lib/playground";
import { formatDuration, formatRange } from "@/lib/runs/format";
import { buildSummary, HISTOGRAM_BINS, type RunSummary, runConfigOf } from "@/lib/runs/summary";
import { FINAL_RUN_STATUSES, type RunRecord } from "@/lib/store/types";
import type { CommandIo } from "./io";
import { type JUnitCase, junitXml } from "./junit";

const pct = (x: number | null) => (x === null ? "—" : `${(x * 100).toFixed(1)}%`);
const num = (x: number | null) => (x === null ? "—" : String(Number(x.toPrecision(4))));

/** How the ended episodes ended: `12 scored, 3 stopped by the policy (2 max_turns, 1 no_tool_call), 1 env_error`. */
function outcomeLine(s: RunSummary): string | null {
  const parts: string[] = [];
  for (const [outcome, n] of Object.entries(s.outcomes)) {
    if (!n) continue;
    if (outcome === "policy_stopped")
      parts.push(
        `${n} stopped by the policy${s.stops.length ? ` (${s.stops.map((x) => `${x.count} ${x.stop}`).join(", ")})` : ""}`,
      );
    else parts.push(`${n} ${outcome}`);
  }
  if (!parts.length) return null;
  const retried = s.attempts.retried
    ? `; ${s.attempts.retried} attempt${s.attempts.retried === 1 ? "" : "s"} played again`
    : "";
  return `  outcomes: ${parts.join(", ")}${retried}`;
}

/** The plain summary the command prints. */
export function formatRunSummary(s: RunSummary, url: string): string {
  const notPlayed = s.pending + s.cancelled + s.interrupted;
  const lines = [
    `Run ${s.id}: ${s.policyLabel} on ${s.env}/${s.split} at ${s.server} (${url}): ${s.status}`,
    `  episodes ${s.episodes}: ${s.completed} scored, ${s.unscored} unscored${s.running ? `, ${s.running} running` : ""}${notPlayed ? `, ${notPlayed} not played` : ""}`,
  ];
  const outcomes = outcomeLine(s);
  if (outcomes) lines.push(outcomes);
  lines.push(
    `  success rate ${pct(s.successRate)} of ${s.completed} scored (reward ≥ ${s.successAt}${s.unscored ? `; ${s.unscored} unscored left out` : ""}), mean reward ${num(s.meanReward)}${s.ci95 ? ` (95% CI ${num(s.ci95[0])} to ${num(s.ci95[1])})` : ""}`,
    `  pass@k: ${Object.entries(s.passAtK)
      .map(([k, v]) => `pass@${k} ${num(v)}`)
      .join(", ")}`,
  );
  const ls = s.learningSignal;
  if (ls?.tasks)
    lines.push(
      `  learning signal (groups of ${ls.group}): mean ${num(ls.meanSignal)}; ${ls.alwaysFailed} of ${ls.tasks} tasks always failed, ${ls.alwaysSolved} always solved (${pct(ls.noGradient)} give no gradient)`,
    );
  if (s.turns)
    lines.push(
      `  turns: median ${s.turns.p50}, p90 ${s.turns.p90}; duration: median ${formatDuration(s.durationMs?.p50 ?? null)}, p90 ${formatDuration(s.durationMs?.p90 ?? null)}`,
    );
  if (s.tokens.episodes)
    lines.push(
      `  tokens per episode: ${Math.round(s.tokens.promptPerEpisode ?? 0)} prompt, ${Math.round(s.tokens.completionPerEpisode ?? 0)} completion`,
    );
  if (s.histogram.length > 1) {
    lines.push("  rewards:");
    const most = Math.max(...s.histogram.map((b) => b.count), 1);
    for (const b of s.histogram)
      lines.push(
        `    ${formatRange(b.from, b.to).padStart(20)}  ${"#".repeat(Math.round((b.count / most) * 20)).padEnd(20)} ${b.count}`,
      );
  }
  if (s.errors.length) {
    lines.push("  errors:");
    for (const e of s.errors.slice(0, 10)) lines.push(`    ${e.count} × ${e.message}`);
  }
  return `${lines.join("\n")}\n`;
}

/** The run as JUnit XML: a test case per task, failed when it did not succeed, an error when none completed. */
export function runJUnit(s: RunSummary, durations: Map<number, number>): string {
  const cases: JUnitCase[] = s.tasks.map((t) => {
    const c: JUnitCase = {
      classname: `run.${s.server}.${s.env}.${s.split}`,
      name: `task ${t.index}`,
      time: (durations.get(t.index) ?? 0) / 1000,
    };
    const rewards = t.rewards.map((r) => (r === null ? "—" : String(r))).join(", ");
    if (t.succeeded === false)
      c.failure = {
        message: `${t.successes} of ${t.completed} attempts succeeded (rewards ${rewards}; success: reward ≥ ${s.successAt})`,
        type: "failed",
      };
    else if (t.succeeded === null) c.error = { message: "no attempt completed", type: "errored" };
    return c;
  });
  return junitXml(`ORS run ${s.id}`, [
    { name: `${s.env}/${s.split} (${s.policyLabel})`, timestamp: s.createdAt, cases },
  ]);
}

export function progressBar(p: {
  done: number;
  errored: number;
  running: number;
  total: number;
  rate: number | null;
  etaMs: number | null;
}): string {
  const width = 24;
  const filled = Math.round(((p.done + p.errored) / Math.max(1, p.total)) * width);
  return `\r\u001b[2K[${"#".repeat(filled)}${".".repeat(width - filled)}] ${p.done + p.errored}/${p.total} · ${p.errored} errored · ${p.running} running${p.rate ? ` · ${p.rate.toFixed(1)}/s` : ""}${p.etaMs !== null ? ` · ${formatDuration(p.etaMs)} left` : ""}`;
}

/** Resolves once the run stopped (whoever plays it), drawing the progress bar on a terminal meanwhile. */
export async function untilStopped(pg: Playground, id: string, io: CommandIo): Promise<RunRecord | null> {
  let unsubscribe = () => {};
  if (io.progress) {
    let last = 0;
    unsubscribe = pg.runEvents.subscribe(id, (e) => {
      if (e.type !== "progress" || (Date.now() - last < 200 && e.status === "running")) return;
      last = Date.now();
      io.stderr(progressBar(e));
    });
  }
  try {
    for (;;) {
      const run = await pg.runs.settled(id);
      if (!run || FINAL_RUN_STATUSES.includes(run.status) || io.signal?.aborted) return run;
      // Played by another process (the app, a worker): its store says how it goes.
      if (io.progress) {
        const p = await pg.runs.progress(id);
        if (p) io.stderr(progressBar(p));
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  } finally {
    unsubscribe();
    if (io.progress) io.stderr("\n");
  }
}

export interface ReportOptions {
  url: string;
  json: string | null;
  junit: string | null;
  minSuccess?: number;
}

/** Prints and writes the run's report; the exit code (0 done and at or above --min-success, else 1). */
export async function reportRun(
  pg: Playground,
  run: RunRecord,
  o: ReportOptions,
  io: CommandIo,
): Promise<number> {
  const config = runConfigOf(run);
  const summary = buildSummary(
    run,
    await pg.store.runAggregates(run.id, { successAt: config.successAt, histogramBins: HISTOGRAM_BINS }),
  );
  const json = `${JSON.stringify({ runId: run.id, ...summary }, null, 2)}\n`;
  if (o.json === "-") io.stdout(json);
  else io.stdout(formatRunSummary(summary, o.url));
  if (o.json && o.json !== "-") fs.writeFileSync(o.json, json);
  if (o.junit) {
    const durations = new Map<number, number>();
    for (const e of await pg.store.runEpisodes(run.id))
      durations.set(e.taskIndex, (durations.get(e.taskIndex) ?? 0) + (e.durationMs ?? 0));
    fs.writeFileSync(o.junit, runJUnit(summary, durations));
  }
  if (summary.status !== "done") return 1;
  if (o.minSuccess !== undefined && (summary.successRate ?? 0) < o.minSuccess) {
    io.stderr(
      `run: the success rate ${pct(summary.successRate)} is below --min-success ${pct(o.minSuccess)}\n`,
    );
    return 1;
  }
  return 0;
}
