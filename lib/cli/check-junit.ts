// The conformance report as JUnit XML (`check --junit FILE`): a testcase per check; a counted finding
// fails (an error when the server failed), a check not exercised is skipped, and a finding that does
// not count passes with its text in <system-out>, so the CI view agrees with the exit code. The
// quality checks (`--quality`) are a second suite, one testcase per check, the same way; the reward
// probes (`--probe`) a third.
import { OUTCOME_TITLES, specLabel } from "@/lib/conformance/labels";
import { sampleLine } from "@/lib/conformance/quality/labels";
import type { QualityEvidence, QualityResult } from "@/lib/conformance/quality/types";
import { type CheckResult, type ConformanceReport, isFinding } from "@/lib/conformance/types";
import { type JUnitCase, junitXml } from "./junit";

const MESSAGE_CHARS = 300;

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MESSAGE_CHARS ? `${flat.slice(0, MESSAGE_CHARS)}…` : flat;
}

/** Why a finding does not count, in a few words. */
function notCounted(r: CheckResult, report: ConformanceReport): string {
  if (r.waived) return "waived";
  if (r.owner === "framework") return `the ${report.framework?.name ?? "server framework"}'s`;
  return "counted only with --strict";
}

function testcase(r: CheckResult, report: ConformanceReport): JUnitCase {
  const c: JUnitCase = { classname: `conformance.${r.group}`, name: r.id, time: r.durationMs / 1000 };
  const text = `${r.title}\n${r.observed}\n${specLabel(r)}`;
  if (r.outcome === "not-exercised") c.skipped = { message: oneLine(r.observed) };
  else if (r.counted && r.outcome === "error")
    c.error = { message: oneLine(r.observed), type: r.outcome, text };
  else if (r.counted) c.failure = { message: oneLine(r.observed), type: r.outcome, text };
  else if (isFinding(r.outcome))
    c.systemOut = `${OUTCOME_TITLES[r.outcome]} (not counted: ${notCounted(r, report)})\n${text}`;
  return c;
}

/** A quality check's (or a probe's) testcase: its evidence (tasks, calls, trajectory pages, the command that reproduces it) in the text. */
function qualityCase(
  r: Omit<QualityResult, "id" | "evidence"> & {
    id: string;
    evidence: (QualityEvidence & { reproduce?: string })[];
  },
  classname = "quality",
): JUnitCase {
  const c: JUnitCase = { classname, name: r.id, time: 0 };
  const evidence = r.evidence.map(
    (e) =>
      `task ${e.task}${e.call ? ` ${e.call.tool} ${JSON.stringify(e.call.input)}` : ""}: ${e.what}${e.trajectory ? ` (${e.compareHref ?? e.trajectory.href})` : ""}${e.reproduce ? `\n  reproduce: ${e.reproduce}` : ""}`,
  );
  const more =
    r.evidenceTotal > r.evidence.length ? [`… and ${r.evidenceTotal - r.evidence.length} more`] : [];
  const text = [r.title, r.observed, ...evidence, ...more].join("\n");
  if (r.outcome === "not-exercised") c.skipped = { message: oneLine(r.observed) };
  else if (r.counted) c.failure = { message: oneLine(r.observed), type: `${classname}-finding`, text };
  else if (r.outcome === "finding") c.systemOut = `finding (not counted: waived)\n${text}`;
  return c;
}

/** Checks that could not play at all (`error`) fail their suite with one case, as they fail the exit code. */
function notPlayed(classname: string, played: { error?: string | null; durationMs: number }): JUnitCase[] {
  if (!played.error) return [];
  const error = { message: oneLine(played.error), type: "not-played" };
  return [{ classname, name: "played", time: played.durationMs / 1000, error }];
}

/** The whole report as a JUnit XML document. */
export function checkJUnit(report: ConformanceReport): string {
  const q = report.quality;
  const p = report.probe;
  return junitXml("ORS conformance check", [
    {
      name: `ORS conformance check of ${report.baseUrl}`,
      timestamp: Date.parse(report.startedAt),
      cases: report.results.map((r) => testcase(r, report)),
    },
    ...(q
      ? [
          {
            name: `ORS quality check of ${q.sample ? sampleLine(q.sample) : "(not played)"} at ${report.baseUrl}`,
            timestamp: Date.parse(q.startedAt),
            cases: [...notPlayed("quality", q), ...q.results.map((r) => qualityCase(r))],
          },
        ]
      : []),
    ...(p
      ? [
          {
            name: `ORS reward probes of ${p.sample ? `${p.sample.environment}/${p.sample.split}: ${p.sample.tasks.length} tasks` : "(not played)"} at ${report.baseUrl}`,
            timestamp: Date.parse(p.startedAt),
            cases: [...notPlayed("probe", p), ...p.results.map((r) => qualityCase(r, "probe"))],
          },
        ]
      : []),
  ]);
}
