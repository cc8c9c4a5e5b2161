// The ORS conformance check: run it against any server (any `fetch`), and report the results as
// text or JSON. Isomorphic; the CLI (lib/cli/check-command.ts) and the UI's check route use it.
export { CHECKS, type CheckId } from "./catalogue";
export {
  type DeviationId,
  FRAMEWORKS,
  type Framework,
  type MarkerId,
  REFERENCE_PYTHON_SDK,
  recogniseFramework,
} from "./frameworks";
export { findings, formatMs, OUTCOME_TITLES, specLabel, summaryLine, verdictOf } from "./labels";
export { COUNTED_BY_DEFAULT, counts } from "./ownership";
export { formatReportJson, formatReportText } from "./report";
export {
  type ConformanceOptions,
  DEFAULT_MAX_TIME_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  runConformanceCheck,
} from "./run";
export {
  CHECK_GROUPS,
  CHECK_OUTCOMES,
  type CheckGroup,
  type CheckInfo,
  type CheckOutcome,
  type CheckPolicy,
  type CheckResult,
  type CheckTask,
  type CheckTool,
  type ConformanceReport,
  countOutcomes,
  emptyCounts,
  type FindingOwner,
  GROUP_TITLES,
  isFinding,
  type OutcomeCounts,
  outcomeRank,
  type RecognisedFramework,
  type SpecRef,
} from "./types";
