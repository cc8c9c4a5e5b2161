// Words and formats shared by the text report, the CLI and the UI (isomorphic, no dependencies, so
// the browser bundle of the check page stays small).
import type { CheckOutcome, CheckResult, OutcomeCounts } from "./types";

export const OUTCOME_TITLES: Record<CheckOutcome, string> = {
  "breaks-reference-client": "Breaks the reference Python client",
  error: "Errors",
  "differs-from-spec": "Differs from the spec",
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

/** `1 breaks the reference client, 2 differ from the spec, 0 errors, 3 not exercised, 30 pass` */
export function summaryLine(counts: OutcomeCounts): string {
  const b = counts["breaks-reference-client"];
  const d = counts["differs-from-spec"];
  return [
    `${b} ${b === 1 ? "breaks" : "break"} the reference client`,
    `${d} ${d === 1 ? "differs" : "differ"} from the spec`,
    `${counts.error} ${counts.error === 1 ? "error" : "errors"}`,
    `${counts["not-exercised"]} not exercised`,
    `${counts.pass} pass`,
  ].join(", ");
}
