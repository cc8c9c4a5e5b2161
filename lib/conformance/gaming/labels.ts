// Words for the reward probes shared by the text report, the JUnit report and the verdict
// (isomorphic, no dependencies: the check page's bundle stays small).
import { partVerdictText } from "../quality/labels";
import type { ProbeReport } from "./types";

/** The probes' part of the verdict: `probe: 1 finding (after-finished)`. */
export function probeVerdictText(p: ProbeReport): string {
  return partVerdictText("probe", p);
}
