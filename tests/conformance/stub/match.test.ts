// How the stub picks a recorded answer (lib/conformance/stub/match.ts): by the calls made so far in
// the session, across several recorded episodes of one task that part ways; inputs compared as the
// caller's comparison says (canonically); off the record, what was recorded at that step; lenient,
// the same tool's nearest step.
import { describe, expect, it } from "vitest";
import { answerCall, type RecordedEpisode } from "@/lib/conformance/stub/match";
import { stableStringify } from "@/lib/trajectory/diff";
import type { TrajectoryStep } from "@/lib/trajectory/schema";
import { recordedStep } from "../steps";

function step(index: number, tool: string, input: Record<string, unknown>, text: string): TrajectoryStep {
  return recordedStep({
    index,
    tool,
    input,
    blocks: [{ type: "text", text, detail: null }],
    finished: false,
  });
}

// Two episodes of one task: the same first guess, then different second guesses.
const episodes: RecordedEpisode[] = [
  { id: "a", steps: [step(1, "guess", { n: 50 }, "lower"), step(2, "guess", { n: 25 }, "higher")] },
  {
    id: "b",
    steps: [
      step(1, "guess", { n: 50 }, "lower"),
      step(2, "guess", { n: 10 }, "higher!"),
      step(3, "hint", {}, "odd"),
    ],
  },
];
const same = (a: unknown, b: unknown) => stableStringify(a) === stableStringify(b);
const o = { lenient: false, task: "train/0" };

describe("answerCall", () => {
  it("follows the session's calls through the episodes that share them", () => {
    const first = answerCall(episodes, [], { tool: "guess", input: { n: 50 } }, same, o);
    expect(first).toMatchObject({ kind: "recorded", episode: "a" });
    const second = answerCall(
      episodes,
      [{ tool: "guess", input: { n: 50 } }],
      { tool: "guess", input: { n: 10 } },
      same,
      o,
    );
    expect(second).toMatchObject({ kind: "recorded", episode: "b", step: { index: 2 } });
  });

  it("off the record: names every input recorded at that step, or that the recording ended", () => {
    const off = answerCall(
      episodes,
      [{ tool: "guess", input: { n: 50 } }],
      { tool: "guess", input: { n: 99 } },
      same,
      o,
    );
    expect(off).toEqual({
      kind: "off",
      message:
        'off the record: guess {"n":99} was not recorded: at step 2 of task train/0 the recording has guess {"n":25} or guess {"n":10}',
    });
    const history = [
      { tool: "guess", input: { n: 50 } },
      { tool: "guess", input: { n: 25 } },
    ];
    expect(answerCall(episodes, history, { tool: "hint", input: {} }, same, o)).toMatchObject({
      kind: "off",
      message: expect.stringContaining(
        "the recording has no step 3 of task train/0 after the calls made so far",
      ),
    });
  });

  it("lenient: the same tool's recorded result at the nearest step, with a note saying so", () => {
    const near = answerCall(episodes, [], { tool: "hint", input: { x: 1 } }, same, { ...o, lenient: true });
    expect(near).toMatchObject({ kind: "nearest", episode: "b", step: { tool: "hint" } });
    expect((near as { note: string }).note).toMatch(
      /^stub --lenient: hint \{"x":1\} was not recorded .*step 3, hint \{\}$/,
    );
  });
});
