// Words and formats shared by the text report, the CLI and the UI (isomorphic, no dependencies, so
// the browser bundle of the check page stays small).
import { probeVerdictText } from "./gaming/labels";
import { qualityVerdictText } from "./quality/labels";
import type { CheckOutcome, CheckResult, ConformanceReport, OutcomeCounts } from "./types";

export const OUTCOME_TITLES: Record<CheckOutcome, string> = {
  "breaks-reference-client": "Breaks the reference Python client",
  error: "Errors",
  "differs-from-spec": "Differs from the spec",
  "breaks-openreward-client": "Breaks the OpenReward client",
  "not-exercised": "Not exercised",
  pass: "Passed",
};

/** `1.5 s`, `230 ms` */
export function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s` : `${Math.round(ms)} ms`;
}

/** `ors-http-api.txt "GET /health"` */
export function specLabel(result: Pick<CheckResult, "spec">): string {
  return `${result.spec.file} "${result.spec.section}"`;
}

/**
 * `1 breaks the reference client, 2 differ from the spec, 0 errors, 3 not exercised, 30 pass`, with
 * `1 breaks the OpenReward client` before `not exercised` when some does.
 */
export function summaryLine(counts: OutcomeCounts): string {
  const b = counts["breaks-reference-client"];
  const d = counts["differs-from-spec"];
  const o = counts["breaks-openreward-client"];
  return [
    `${b} ${b === 1 ? "breaks" : "break"} the reference client`,
    `${d} ${d === 1 ? "differs" : "differ"} from the spec`,
    `${counts.error} ${counts.error === 1 ? "error" : "errors"}`,
    ...(o ? [`${o} ${o === 1 ? "breaks" : "break"} the OpenReward client`] : []),
    `${counts["not-exercised"]} not exercised`,
    `${counts.pass} pass`,
  ].join(", ");
}

/** `1 finding` / `3 findings` */
export function findings(n: number): string {
  return `${n} finding${n === 1 ? "" : "s"}`;
}

/**
 * The report's verdict in a sentence (the text report's last words, the UI's headline), and whether
 * it passed (the CLI's exit code 0). Framework findings are named as the framework's, so a check
 * of a server built on it does not read as an alarm for its author. With the quality checks, their
 * part follows (`...; quality: 2 findings (answer-leak, tool-crash)`) and both must pass.
 */
export function verdictOf(
  report: Pick<ConformanceReport, "summary" | "results" | "framework" | "policy"> &
    Partial<Pick<ConformanceReport, "quality" | "probe">>,
): {
  passed: boolean;
  text: string;
} {
  const protocol = protocolVerdict(report);
  const parts = [protocol.text];
  let passed = protocol.passed;
  if (report.quality) {
    passed &&= report.quality.summary.passed;
    parts.push(qualityVerdictText(report.quality));
  }
  if (report.probe) {
    passed &&= report.probe.summary.passed;
    parts.push(probeVerdictText(report.probe));
  }
  return { passed, text: parts.join("; ") };
}

/** The verdict of the protocol checks alone. */
function protocolVerdict(report: Pick<ConformanceReport, "summary" | "results" | "framework" | "policy">): {
  passed: boolean;
  text: string;
} {
  const { summary, framework } = report;
  const counted = report.results.filter((r) => r.counted);
  const byAuthor = counted.filter(
    (r) => r.owner === "author" && (r.outcome === "breaks-reference-client" || r.outcome === "error"),
  );
  const theirs =
    framework && summary.owners.framework > 0
      ? `${findings(summary.owners.framework)} ${summary.owners.framework === 1 ? "is" : "are"} the ${framework.name}'s, not the environment's`
      : null;
  if (counted.length) {
    if (byAuthor.length)
      return {
        passed: false,
        text: `not usable as is by the reference client${theirs ? `; ${theirs}` : ""}`,
      };
    return {
      passed: false,
      text: `${findings(counted.length)} ${counted.length === 1 ? "counts" : "count"} under --strict${theirs ? ` (${theirs})` : ""}`,
    };
  }
  const openreward = report.results.filter(
    (r) => r.outcome === "breaks-openreward-client" && r.owner !== "framework" && !r.waived,
  ).length;
  const also = openreward
    ? `; the OpenReward client fails on ${openreward} check${openreward === 1 ? "" : "s"} (not counted)`
    : "";
  if (theirs)
    return {
      passed: true,
      text: `nothing for the environment's author to fix: ${theirs}${report.policy.strict ? "" : " (--strict counts them)"}${also}`,
    };
  if (summary.clean) return { passed: true, text: `clean${also}` };
  if (summary.ok) return { passed: true, text: `usable by the reference client${also}` };
  return {
    passed: true,
    text: `usable by the reference client with ${findings(summary.waived)} waived${also}`,
  };
}
