// `tool-crash` (docs/check.md "Environment quality"): valid inputs make a tool fail with a server
// error. What counts as one, on a call the checks made (isomorphic):
// - `event: error` on its stream: the spec's "tool execution failed at HTTP/server level" (a Python
//   server built on the reference SDK answers so when a tool raises);
// - an HTTP 5xx answer to the `/call` (the relay saw it; no step is recorded for it);
// - `{"ok": false}` whose error is an uncaught runtime exception's words (CRASH_PATTERNS): hosts
//   that report a thrown exception as a tool error — this repository's TypeScript host does — say
//   `Cannot read properties of undefined`, a Python one `Traceback ...` or `KeyError: 'x'`.
// Other `{"ok": false}` answers are the environment refusing on purpose, and never count.
import type { TrajectoryStep } from "@/lib/trajectory/schema";
import type { QualityData } from "./played";
import { allEpisodes, brief } from "./played";
import { type QualityEvidence, trajectoryRef } from "./types";

/** Error texts of uncaught runtime exceptions (JavaScript engines' and Python's), and of malformed results. */
export const CRASH_PATTERNS: readonly RegExp[] = [
  /^\s*(TypeError|ReferenceError|RangeError|SyntaxError|EvalError|URIError|InternalError)\b/,
  /\bCannot (read|set) propert(y|ies) of (undefined|null)\b/,
  /\bis not (a function|defined|iterable|a constructor)\b/,
  /\bMaximum call stack size exceeded\b/,
  /\bCannot access '[^']+' before initialization\b/,
  /\bInvalid array length\b/,
  /\bAssignment to constant variable\b/,
  /\bTraceback \(most recent call last\)/,
  /^\s*(KeyError|IndexError|AttributeError|ZeroDivisionError|NameError|UnboundLocalError|RecursionError|AssertionError|NotImplementedError|ModuleNotFoundError|ImportError|FileNotFoundError)\b/,
  // This repository's host, for a tool whose result is not a ToolOutput (lib/ors/host/output.ts).
  /\breturned an invalid result\b/,
];

/** Why a failed step is a crash (a server error), or null when the environment refused on purpose. */
export function crashOf(step: TrajectoryStep): string | null {
  if (step.ok !== false) return null;
  const errorFrame = step.events.find((e) => e.kind === "event" && e.event === "error");
  if (errorFrame) return `event: error ${brief(step.error ?? (errorFrame as { data: string }).data, 160)}`;
  const text = step.error ?? "";
  if (CRASH_PATTERNS.some((p) => p.test(text))) return `{"ok": false} with an exception: ${brief(text, 160)}`;
  return null;
}

export interface CrashAnalysis {
  /** Tool calls made in all, and how many the environment refused on purpose (`ok: false`). */
  calls: number;
  refused: number;
  evidence: QualityEvidence[];
  /** The tools that crashed (a 5xx answer names none: its call was not recorded). */
  tools: string[];
}

export function findCrashes(data: QualityData): CrashAnalysis {
  const out: CrashAnalysis = { calls: 0, refused: 0, evidence: [], tools: [] };
  // The replays repeat the same calls: a crash is shown once per tool, input and error.
  const seen = new Set<string>();
  const tools = new Set<string>();
  const sids = new Map<string, { task: number; trajectory: string }>();
  for (const { role, episode } of allEpisodes(data)) {
    const t = episode.trajectory;
    if (!t) continue;
    if (t.sid) sids.set(t.sid, { task: episode.task, trajectory: t.id });
    for (const step of t.steps) {
      if (step.ok === null) continue;
      out.calls++;
      const crash = crashOf(step);
      if (!crash) {
        if (step.ok === false) out.refused++;
        continue;
      }
      const key = JSON.stringify([step.tool, step.input, step.error]);
      if (seen.has(key)) continue;
      seen.add(key);
      tools.add(step.tool);
      out.evidence.push({
        task: episode.task,
        what: `${role}: ${step.tool} failed: ${crash}`,
        call: { tool: step.tool, input: step.input },
        trajectory: trajectoryRef(t.id, step.index),
        other: null,
        compareHref: null,
      });
    }
  }
  for (const f of data.callFailures) {
    const at = sids.get(f.sid);
    if (!at) continue;
    out.calls++;
    out.evidence.push({
      task: at.task,
      what: `a /call was answered HTTP ${f.status}: ${brief(f.detail, 160)}`,
      call: null,
      trajectory: trajectoryRef(at.trajectory),
      other: null,
      compareHref: null,
    });
  }
  out.tools = [...tools];
  return out;
}
