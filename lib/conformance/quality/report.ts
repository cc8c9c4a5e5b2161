// The quality checks in the check's report (isomorphic; docs/check.md "Environment quality"): the
// report joined to the protocol's (`quality`, and `summary.passed` counting both), a report for
// checks that could not play, and the text section — what was sampled, each check with the tasks,
// calls and links to the recorded trajectories that show its finding.
import type { ConformanceReport } from "../types";
import { qualitySummary, unplayedResults } from "./analyze";
import { callsLine, playsLine, sampleLine } from "./labels";
import { brief } from "./played";
import type { QualityEvidence, QualityOutcome, QualityReport, QualityResult } from "./types";

/** The protocol report with the quality checks' joined: it passes when both do. */
export function attachQuality(report: ConformanceReport, quality: QualityReport): ConformanceReport {
  const protocolPassed = !report.results.some((r) => r.counted);
  return {
    ...report,
    summary: { ...report.summary, passed: protocolPassed && quality.summary.passed },
    quality,
  };
}

/** The report of quality checks that could not play at all (`why`: an unknown split, an oracle that fails to load ...). */
export function unplayedQuality(server: string, why: string, allow: readonly string[] = []): QualityReport {
  const at = new Date().toISOString();
  const results = unplayedResults(`not played: ${why}`, allow);
  return {
    server,
    startedAt: at,
    finishedAt: at,
    durationMs: 0,
    sample: null,
    error: why,
    bestReward: null,
    results,
    summary: qualitySummary(results, why),
  };
}

export interface QualityTextOptions {
  color?: boolean;
  /** The playground's URL the trajectory links start with (e.g. `http://127.0.0.1:3000`); none: paths. */
  appUrl?: string;
  /** Evidence lines shown per finding (the JSON has them all, up to its cap). */
  evidenceLines?: number;
}

const COLORS: Record<QualityOutcome | "waived", string> = {
  finding: "\x1b[31m",
  "not-exercised": "\x1b[90m",
  pass: "\x1b[32m",
  waived: "\x1b[90m",
};
const MARKS: Record<QualityOutcome, string> = { finding: "✗", "not-exercised": "-", pass: "✓" };
const BOLD = "\x1b[1m";
const DIM = "\x1b[2m";
const RESET = "\x1b[0m";

/** A check's lines (the probes' too, whose evidence adds the command that reproduces it). */
export function resultLines(
  r: Omit<QualityResult, "id" | "evidence"> & {
    id: string;
    evidence: (QualityEvidence & { reproduce?: string })[];
  },
  o: QualityTextOptions,
  c: (code: string, s: string) => string,
): string[] {
  const link = (href: string) => `${o.appUrl ?? ""}${href}`;
  const lines = [
    `  ${c(COLORS[r.waived && r.outcome === "finding" ? "waived" : r.outcome], MARKS[r.outcome])} ${r.id} — ${r.title}${r.waived && r.outcome === "finding" ? c(DIM, " (waived)") : ""}`,
    `      ${r.observed}`,
  ];
  const shown = r.evidence.slice(0, o.evidenceLines ?? 5);
  for (const e of shown) {
    const call = e.call ? ` (${e.call.tool} ${brief(e.call.input, 60)})` : "";
    lines.push(`      task ${e.task}${call}: ${e.what}`);
    if (e.compareHref) lines.push(c(DIM, `        compare: ${link(e.compareHref)}`));
    else if (e.trajectory) lines.push(c(DIM, `        open: ${link(e.trajectory.href)}`));
    if (e.reproduce) lines.push(c(DIM, `        reproduce: ${e.reproduce}`));
  }
  const more = r.evidenceTotal - shown.length;
  if (more > 0)
    lines.push(
      c(DIM, `      … and ${more} more${r.evidenceTotal > r.evidence.length ? "" : " (in the JSON report)"}`),
    );
  return lines;
}

/** The quality section of the text report. */
export function formatQualityText(q: QualityReport, o: QualityTextOptions = {}): string[] {
  const c = (code: string, s: string) => (o.color ? `${code}${s}${RESET}` : s);
  const s = q.sample;
  const lines = ["", c(BOLD, `Environment quality${s ? ` of ${sampleLine(s)}` : ""} (server ${q.server})`)];
  if (s) {
    lines.push(c(DIM, `  tasks: ${s.tasks.join(", ")}`));
    lines.push(c(DIM, `  played: ${playsLine(s)}`));
    lines.push(c(DIM, `  ${callsLine(s)}; best episode reward ${q.bestReward ?? "none"}`));
  }
  if (q.error) lines.push(`  ${c(COLORS.finding, "!")} ${q.error}`);
  for (const r of q.results) lines.push(...resultLines(r, o, c));
  return lines;
}
