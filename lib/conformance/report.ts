// The conformance report for people (text: the author's findings by outcome, the server framework's,
// the waived ones, not exercised, passed, the environment quality checks when run, and the verdict)
// and for machines (`ors-conformance/1` JSON, documented in docs/check.md). Isomorphic.

import { formatProbeText } from "./gaming/report";
import { formatMs, OUTCOME_TITLES, specLabel, summaryLine, verdictOf } from "./labels";
import { formatQualityText } from "./quality/report";
import {
  CHECK_OUTCOMES,
  type CheckOutcome,
  type CheckResult,
  type ConformanceReport,
  isFinding,
} from "./types";

const MARKS: Record<CheckOutcome, string> = {
  "breaks-reference-client": "✗",
  error: "✗",
  "differs-from-spec": "!",
  "breaks-openreward-client": "◇",
  "not-exercised": "-",
  pass: "✓",
};

const COLORS: Record<CheckOutcome, string> = {
  "breaks-reference-client": "\x1b[31m",
  error: "\x1b[31m",
  "differs-from-spec": "\x1b[33m",
  "breaks-openreward-client": "\x1b[35m",
  "not-exercised": "\x1b[90m",
  pass: "\x1b[32m",
};
const FRAMEWORK_COLOR = "\x1b[36m";
const BOLD = "\x1b[1m";
const DIM = "\x1b[2m";
const RESET = "\x1b[0m";

export interface TextOptions {
  /** ANSI colours (for a terminal). */
  color?: boolean;
  /** The playground's URL, for the links to the quality checks' recorded trajectories. */
  appUrl?: string;
}

/** The report as text: a header, the results in sections (see above), a summary line. */
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
  if (report.framework)
    lines.push(
      c(
        DIM,
        `server framework: ${report.framework.name} (recognised by ${report.framework.evidence.length} of its own behaviours)`,
      ),
    );

  const item = (r: CheckResult, mark: string, color: string, extra: string | null = null) => {
    lines.push(`  ${c(color, mark)} ${r.id} — ${r.title}`);
    lines.push(`      ${r.observed}`);
    lines.push(`      ${c(DIM, [specLabel(r), extra].filter(Boolean).join(" · "))}`);
  };
  const section = (title: string, results: CheckResult[], note: string | null = null) => {
    if (!results.length) return false;
    lines.push("", c(BOLD, `${title} (${results.length})`));
    if (note) lines.push(c(DIM, `  ${note}`));
    return true;
  };

  const author = report.results.filter((r) => r.owner !== "framework" && !r.waived);
  for (const outcome of CHECK_OUTCOMES) {
    if (!isFinding(outcome)) continue;
    const group = author.filter((r) => r.outcome === outcome);
    const note =
      outcome === "breaks-openreward-client"
        ? `What the OpenReward platform's client (openreward) needs beyond the spec; ${report.policy.strict ? "counted (--strict)" : "not counted (--strict counts them)"}.`
        : null;
    if (section(OUTCOME_TITLES[outcome], group, note))
      for (const r of group) item(r, MARKS[outcome], COLORS[outcome]);
  }
  const framework = report.results.filter((r) => r.owner === "framework" && !r.waived);
  if (
    report.framework &&
    section(
      `The server framework's: ${report.framework.name}`,
      framework,
      `Known deviations of the ${report.framework.name}, which the environment's author cannot fix; ${report.policy.strict ? "counted (--strict)" : "not counted (--strict counts them)"}.`,
    )
  )
    for (const r of framework)
      item(
        r,
        MARKS[r.outcome],
        FRAMEWORK_COLOR,
        `${OUTCOME_TITLES[r.outcome].toLowerCase()}, the framework's`,
      );
  const waived = report.results.filter((r) => r.waived && isFinding(r.outcome));
  if (section("Waived", waived, "Findings of checks waived with --allow or --allow-file: never counted."))
    for (const r of waived)
      item(
        r,
        MARKS[r.outcome],
        COLORS["not-exercised"],
        `${OUTCOME_TITLES[r.outcome].toLowerCase()}${r.owner === "framework" ? ", the framework's" : ""}`,
      );
  for (const outcome of ["not-exercised", "pass"] as const) {
    const group = report.results.filter((r) => r.outcome === outcome);
    if (section(OUTCOME_TITLES[outcome], group))
      for (const r of group) item(r, MARKS[outcome], COLORS[outcome]);
  }

  if (report.quality)
    lines.push(...formatQualityText(report.quality, { color: options.color, appUrl: options.appUrl }));
  if (report.probe)
    lines.push(...formatProbeText(report.probe, { color: options.color, appUrl: options.appUrl }));

  const verdict = verdictOf(report);
  // Said loud in a terminal, as it has always been.
  const words = verdict.text.replace(/^not usable/, "NOT usable");
  lines.push(
    "",
    `${c(BOLD, "Summary:")} ${summaryLine(report.summary.counts)} (${report.summary.total} checks, ${formatMs(report.durationMs)}): ${c(
      verdict.passed ? COLORS.pass : COLORS.error,
      words,
    )}`,
  );
  return `${lines.join("\n")}\n`;
}

/** The report as JSON text (the `ors-conformance/1` shape, pretty-printed). */
export function formatReportJson(report: ConformanceReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
