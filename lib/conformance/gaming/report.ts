// The probes in the check's report (docs/check.md "Can the reward be gamed?"): joined to the
// protocol's (`probe`, and `summary.passed` counting it), a report of probes that could not play,
// the text section (each probe with the tasks that paid, the episode's page and the command that
// plays it again, as the quality checks write theirs), and the verdict's words. Isomorphic.
import { qualitySummary } from "../quality/analyze";
import { resultLines } from "../quality/report";
import type { ConformanceReport } from "../types";
import { unplayedProbes } from "./analyze";
import type { ProbeReport } from "./types";

const BOLD = "\x1b[1m";
const DIM = "\x1b[2m";
const RESET = "\x1b[0m";
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** The report with the probes' joined: it passes when everything in it does. */
export function attachProbe(report: ConformanceReport, probe: ProbeReport): ConformanceReport {
  return {
    ...report,
    summary: { ...report.summary, passed: report.summary.passed && probe.summary.passed },
    probe,
  };
}

/** The report of probes that could not play at all (`why`: no reference, an unknown split ...). */
export function unplayedProbe(server: string, why: string, allow: readonly string[] = []): ProbeReport {
  const at = new Date().toISOString();
  const results = unplayedProbes(why, allow);
  return {
    server,
    startedAt: at,
    finishedAt: at,
    durationMs: 0,
    reference: null,
    sample: null,
    error: why,
    results,
    summary: qualitySummary(results, why),
  };
}

/** The probes' section of the text report. */
export function formatProbeText(p: ProbeReport, o: { color?: boolean; appUrl?: string } = {}): string[] {
  const c = (code: string, s: string) => (o.color ? `${code}${s}${RESET}` : s);
  const s = p.sample;
  const head = s ? ` of ${s.environment}/${s.split}: ${plural(s.tasks.length, "task")} (seed ${s.seed})` : "";
  const lines = ["", c(BOLD, `Can the reward be gamed?${head} (server ${p.server})`)];
  if (p.reference)
    lines.push(
      c(
        DIM,
        `  compared with the best reward of ${p.reference.kind} ${p.reference.source}${p.reference.runId ? ` (run ${p.reference.runId})` : ""}`,
      ),
    );
  if (s)
    lines.push(
      c(DIM, `  ${plural(s.episodes, "episode")} played${s.failed ? `, ${s.failed} could not be` : ""}`),
    );
  if (p.error) lines.push(`  ! ${p.error}`);
  for (const r of p.results)
    lines.push(...resultLines(r, { color: o.color, appUrl: o.appUrl, evidenceLines: 3 }, c));
  return lines;
}
