// The conformance report for people (text grouped by outcome, worst first, with a summary line) and
// for machines (`ors-conformance/1` JSON, documented in README.md "Check a server"). Isomorphic.
import { formatMs, OUTCOME_TITLES, specLabel, summaryLine } from "./labels";
import { CHECK_OUTCOMES, type CheckOutcome, type ConformanceReport } from "./types";

const MARKS: Record<CheckOutcome, string> = {
  "breaks-reference-client": "✗",
  error: "✗",
  "differs-from-spec": "!",
  "not-exercised": "-",
  pass: "✓",
};

const COLORS: Record<CheckOutcome, string> = {
  "breaks-reference-client": "\x1b[31m",
  error: "\x1b[31m",
  "differs-from-spec": "\x1b[33m",
  "not-exercised": "\x1b[90m",
  pass: "\x1b[32m",
};
const BOLD = "\x1b[1m";
const DIM = "\x1b[2m";
const RESET = "\x1b[0m";

export interface TextOptions {
  /** ANSI colours (for a terminal). */
  color?: boolean;
}

/** The report as text: a header, the results grouped by outcome (worst first), a summary line. */
export function formatReportText(report: ConformanceReport, options: TextOptions = {}): string {
  const c = (code: string, s: string) => (options.color ? `${code}${s}${RESET}` : s);
  const lines: string[] = [];
  lines.push(c(BOLD, `ORS conformance check of ${report.baseUrl}`));
  const { environment, task, tool } = report.target;
  const target = [
    environment ? `environment ${environment}` : null,
    task ? `task ${task.split}:${task.index}` : null,
    tool ? `tool ${tool.name} ${JSON.stringify(tool.input)}` : null,
  ].filter(Boolean);
  if (target.length) lines.push(c(DIM, target.join(" · ")));
  for (const outcome of CHECK_OUTCOMES) {
    const group = report.results.filter((r) => r.outcome === outcome);
    if (!group.length) continue;
    lines.push("", c(BOLD, `${OUTCOME_TITLES[outcome]} (${group.length})`));
    for (const r of group) {
      lines.push(`  ${c(COLORS[outcome], MARKS[outcome])} ${r.id} — ${r.title}`);
      lines.push(`      ${r.observed}`);
      lines.push(`      ${c(DIM, specLabel(r))}`);
    }
  }
  const verdict = report.summary.clean
    ? "clean"
    : report.summary.ok
      ? "usable by the reference client"
      : "NOT usable as is by the reference client";
  lines.push(
    "",
    `${c(BOLD, "Summary:")} ${summaryLine(report.summary.counts)} (${report.summary.total} checks, ${formatMs(report.durationMs)}): ${c(
      report.summary.ok ? COLORS.pass : COLORS.error,
      verdict,
    )}`,
  );
  return `${lines.join("\n")}\n`;
}

/** The report as JSON text (the `ors-conformance/1` shape, pretty-printed). */
export function formatReportJson(report: ConformanceReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
