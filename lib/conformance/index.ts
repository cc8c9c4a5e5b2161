// The ORS conformance check: run it against any server (any `fetch`), and report the results as
// text or JSON. Isomorphic; the CLI (lib/cli/check-command.ts) and the UI's check route use it.
export { CHECKS, type CheckId } from "./catalogue";
export { formatMs, OUTCOME_TITLES, specLabel, summaryLine } from "./labels";
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
  type CheckResult,
  type CheckTask,
  type CheckTool,
  type ConformanceReport,
  countOutcomes,
  emptyCounts,
  GROUP_TITLES,
  type OutcomeCounts,
  outcomeRank,
  type SpecRef,
} from "./types";
