// Words for the reward probes shared by the text report, the JUnit report and the verdict
// (isomorphic, no dependencies: the check page's bundle stays small).
import type { ProbeReport } from "./types";

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** The probes' part of the verdict: `probe: 1 finding (after-finished)`. */
export function probeVerdictText(p: ProbeReport): string {
  if (p.error && !p.sample) return `probe: not played (${p.error})`;
  const counted = p.results.filter((r) => r.counted).map((r) => r.id);
  const waived = p.summary.waived ? `, ${p.summary.waived} waived` : "";
  const stopped = p.error ? `; ${p.error}` : "";
  if (counted.length)
    return `probe: ${plural(counted.length, "finding")} (${counted.join(", ")})${waived}${stopped}`;
  return p.error ? `probe: no finding${waived}, but ${p.error}` : `probe: no finding${waived}`;
}
