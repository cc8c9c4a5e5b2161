// The conformance report as JUnit XML (`check --junit FILE`): a testcase per check; a counted finding
// fails (an error when the server failed), a check not exercised is skipped, and a finding that does
// not count passes with its text in <system-out>, so the CI view agrees with the exit code.
import { OUTCOME_TITLES, specLabel } from "@/lib/conformance/labels";
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

/** The whole report as a JUnit XML document. */
export function checkJUnit(report: ConformanceReport): string {
  return junitXml("ORS conformance check", [
    {
      name: `ORS conformance check of ${report.baseUrl}`,
      timestamp: Date.parse(report.startedAt),
      cases: report.results.map((r) => testcase(r, report)),
    },
  ]);
}
