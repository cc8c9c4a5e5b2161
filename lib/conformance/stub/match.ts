// How the stub answers a call (docs/ci.md "A stand-in server"): the recorded result of the same task,
// step and input — among the task's recorded episodes, those whose earlier calls are the session's
// so far, one whose next call is this one. Off the record, what was expected at that step; with
// `lenient`, the nearest recorded result instead, saying so. Isomorphic and pure.
import type { JsonObject } from "@/lib/ors/protocol";
import type { TrajectoryStep } from "@/lib/trajectory/schema";

/** A recorded episode of one task: its calls in order (those that ended, after its end included). */
export interface RecordedEpisode {
  id: string;
  steps: TrajectoryStep[];
}

export interface StubCall {
  tool: string;
  input: JsonObject;
}

export type StubAnswer =
  | { kind: "recorded"; step: TrajectoryStep; episode: string }
  | { kind: "nearest"; step: TrajectoryStep; episode: string; note: string }
  | { kind: "off"; message: string };

/** The steps of a trajectory a stub replays: every call that ended, in order. */
export function replayableSteps(steps: readonly TrajectoryStep[]): TrajectoryStep[] {
  return steps.filter((s) => s.ok !== null);
}

function brief(call: { tool: string; input: unknown }): string {
  const json = JSON.stringify(call.input);
  return `${call.tool} ${json.length > 120 ? `${json.slice(0, 120)}…` : json}`;
}

/**
 * The answer to `call`, the session's call number `history.length + 1` on a task recorded as
 * `episodes`. `same(recorded, given, tool)` compares inputs canonically (as the tool reads them).
 */
export function answerCall(
  episodes: readonly RecordedEpisode[],
  history: readonly StubCall[],
  call: StubCall,
  same: (recorded: JsonObject, given: JsonObject, tool: string) => boolean,
  o: { lenient: boolean; task: string },
): StubAnswer {
  const n = history.length;
  const matches = (s: TrajectoryStep, c: StubCall) => s.tool === c.tool && same(s.input, c.input, c.tool);
  const onPath = episodes.filter(
    (e) => e.steps.length > n && history.every((h, i) => matches(e.steps[i]!, h)),
  );
  for (const e of onPath)
    if (matches(e.steps[n]!, call)) return { kind: "recorded", step: e.steps[n]!, episode: e.id };
  const expected = [...new Set(onPath.map((e) => brief(e.steps[n]!)))];
  const where = `step ${n + 1} of task ${o.task}`;
  const why = !episodes.length
    ? `no episode of task ${o.task} was recorded`
    : expected.length
      ? `at ${where} the recording has ${expected.slice(0, 3).join(" or ")}${expected.length > 3 ? ` (or ${expected.length - 3} more)` : ""}`
      : `the recording has no ${where} after the calls made so far${history.length ? ` (${history.map(brief).join(", ")})` : ""}`;
  if (!o.lenient || !episodes.length)
    return { kind: "off", message: `off the record: ${brief(call)} was not recorded: ${why}` };
  // The nearest: the same tool at this step, else the same tool at the closest step, else this step.
  const all = episodes.flatMap((e) => e.steps.map((s, i) => ({ s, i, e: e.id })));
  const sameTool = all
    .filter((x) => x.s.tool === call.tool)
    .sort((a, b) => Math.abs(a.i - n) - Math.abs(b.i - n));
  const pick = sameTool[0] ?? all.find((x) => x.i === n) ?? all[all.length - 1]!;
  return {
    kind: "nearest",
    step: pick.s,
    episode: pick.e,
    note: `stub --lenient: ${brief(call)} was not recorded (${why}); this is the recorded result of step ${pick.i + 1}, ${brief(pick.s)}`,
  };
}
