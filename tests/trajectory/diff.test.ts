// Step-aligned diff of trajectories and the replay marks.
import { describe, expect, it } from "vitest";
import {
  compareSteps,
  diffText,
  diffTrajectories,
  markDiffers,
  parseIgnore,
  replayMark,
  stableStringify,
} from "@/lib/trajectory/diff";
import { step, trajectory } from "../episodes/helpers";

describe("diff", () => {
  it("finds nothing between identical trajectories (key order and timings ignored)", () => {
    const a = trajectory("a");
    const b = trajectory("b", {
      steps: a.steps.map((s) => ({
        ...s,
        input: Object.fromEntries(Object.entries(s.input).reverse()),
        latency_ms: 999,
      })),
    });
    const d = diffTrajectories(a, b);
    expect(d.differing).toBe(0);
    expect(d.firstDifference).toBeNull();
    expect(d.header).toEqual([]);
  });

  it("aligns by step and names the differing fields", () => {
    const a = trajectory("a", { steps: [step(1), step(2), step(3, { finished: true })] });
    const b = trajectory("b", {
      steps: [step(1), step(2, { reward: 0, blocks: [{ type: "text", text: "other" }] })],
      end_reason: "user_closed",
    });
    const d = diffTrajectories(a, b);
    expect(d.steps.map((s) => s.fields)).toEqual([
      [],
      ["observation", "reward"],
      ["tool", "input", "observation", "reward", "finished", "ok", "error", "metadata"],
    ]);
    expect(d.steps[2].b).toBeNull();
    expect(d.firstDifference).toBe(2);
    expect(d.differing).toBe(2);
    expect(d.header).toEqual(["end_reason", "total_reward", "num_steps"]);
  });

  it("marks replayed steps; metadata alone does not flag", () => {
    const m = replayMark(step(1), step(1, { finished: true }), "orig");
    expect(m).toEqual({ of: "orig", step: 1, differs: ["finished"] });
    expect(markDiffers(m)).toBe(true);
    const meta = replayMark(step(1), step(1, { metadata: { seed: 2 } }), "orig");
    expect(meta.differs).toEqual(["metadata"]);
    expect(markDiffers(meta)).toBe(false);
    expect(markDiffers(replayMark(step(1), step(1), "o"))).toBe(false);
  });

  it("word diff of texts", () => {
    expect(diffText("you rolled a 3", "you rolled a 5")).toEqual([
      { op: "same", text: "you rolled a " },
      { op: "del", text: "3" },
      { op: "add", text: "5" },
    ]);
    expect(diffText("same", "same")).toEqual([{ op: "same", text: "same" }]);
    // Punctuation is a token of its own: only what changed is marked.
    expect(diffText("It is Paris.", "It is Paris!")).toEqual([
      { op: "same", text: "It is Paris" },
      { op: "del", text: "." },
      { op: "add", text: "!" },
    ]);
    // So is whitespace: a change of spacing or of a line break shows, as the comparison sees it.
    expect(diffText("a  b\nc", "a b c")).toEqual([
      { op: "same", text: "a" },
      { op: "del", text: "  " },
      { op: "add", text: " " },
      { op: "same", text: "b" },
      { op: "del", text: "\n" },
      { op: "add", text: " " },
      { op: "same", text: "c" },
    ]);
    expect(diffText("", "new")).toEqual([{ op: "add", text: "new" }]);
    expect(diffText("old", "")).toEqual([{ op: "del", text: "old" }]);
  });

  it("word diff of texts too large or too different to read as a diff: replaced whole", () => {
    const huge = "word ".repeat(50_000);
    expect(diffText(huge, `${huge}more`)).toEqual([
      { op: "del", text: huge },
      { op: "add", text: `${huge}more` },
    ]);
    const words = (seed: number) =>
      Array.from({ length: 3000 }, (_, i) => `w${(i * 7919 + seed) % 10007}`).join(" ");
    const [a, b] = [words(1), words(2)];
    expect(diffText(a, b)).toEqual([
      { op: "del", text: a },
      { op: "add", text: b },
    ]);
    expect(stableStringify({ b: 1, a: [{ d: 1, c: undefined }] })).toBe('{"a":[{"d":1}],"b":1}');
  });
});

describe("comparison options (golden tests)", () => {
  const rolled = (n: number, over: Parameters<typeof step>[1] = {}) =>
    step(1, {
      blocks: [{ type: "text", text: `You rolled ${n}.` }],
      reward: n / 10,
      metadata: { value: n, seed: n * 7, stats: { roll: 1, took_ms: n } },
      ...over,
    });

  it("default options compare exactly, as before (the UI's replay and diff)", () => {
    expect(compareSteps(rolled(3), rolled(5))).toEqual(["observation", "reward", "metadata"]);
    expect(compareSteps(rolled(3), rolled(5), {})).toEqual(["observation", "reward", "metadata"]);
    expect(compareSteps(rolled(3), rolled(3))).toEqual([]);
  });

  it("ignores whole fields", () => {
    expect(compareSteps(rolled(3), rolled(5), { ignore: ["observation", "metadata"] })).toEqual(["reward"]);
    expect(
      compareSteps(step(1, { ok: false, error: "boom 1" }), step(1, { ok: false, error: "boom 2" }), {
        ignore: ["error"],
      }),
    ).toEqual([]);
    // ok is a field of its own: ignoring the error text does not hide a call that now fails.
    expect(compareSteps(step(1), step(1, { ok: false, error: "boom" }), { ignore: ["error"] })).toEqual([
      "ok",
    ]);
  });

  it("ignores JSON paths inside metadata, blocks and input (`*` for every key or item)", () => {
    const a = rolled(3);
    const b = rolled(3, { metadata: { value: 3, seed: 99, stats: { roll: 1, took_ms: 80 } } });
    expect(compareSteps(a, b, { ignore: ["metadata.seed"] })).toEqual(["metadata"]);
    expect(compareSteps(a, b, { ignore: ["metadata.seed", "metadata.stats.took_ms"] })).toEqual([]);
    expect(compareSteps(a, b, { ignore: ["metadata.seed", "metadata.*.took_ms"] })).toEqual([]);
    // A path that does not exist removes nothing.
    expect(compareSteps(a, b, { ignore: ["metadata.nope.deeper"] })).toEqual(["metadata"]);

    const img = (data: string, detail?: string) =>
      step(1, {
        blocks: [
          { type: "text", text: "same" },
          { type: "image", data, mimeType: "image/png", ...(detail ? { detail: { hint: detail } } : {}) },
        ],
      });
    expect(compareSteps(img("AAAA"), img("BBBB"), { ignore: ["observation.1.data"] })).toEqual([]);
    expect(compareSteps(img("AAAA"), img("BBBB"), { ignore: ["observation[1]"] })).toEqual([]);
    expect(compareSteps(img("AAAA"), img("BBBB"), { ignore: ["blocks.*.data"] })).toEqual([]);
    expect(compareSteps(img("AAAA"), img("BBBB"), { ignore: ["observation.0"] })).toEqual(["observation"]);
    expect(compareSteps(img("A", "x"), img("A", "y"), { ignore: ["observation.*.detail"] })).toEqual([]);
    expect(
      compareSteps(step(1, { input: { q: "a", at: 1 } }), step(1, { input: { q: "a", at: 2 } }), {
        ignore: ["input.at"],
      }),
    ).toEqual([]);
  });

  it("a reward tolerance (absolute, inclusive); null never equals a number", () => {
    const r = (reward: number | null) => step(1, { reward });
    expect(compareSteps(r(0.5), r(0.509), { rewardTolerance: 0.01 })).toEqual([]);
    expect(compareSteps(r(0.5), r(0.49), { rewardTolerance: 0.01 })).toEqual([]);
    expect(compareSteps(r(0.5), r(0.52), { rewardTolerance: 0.01 })).toEqual(["reward"]);
    expect(compareSteps(r(0), r(null), { rewardTolerance: 1 })).toEqual(["reward"]);
    expect(compareSteps(r(null), r(null), { rewardTolerance: 1 })).toEqual([]);
  });

  it("whitespace normalisation and masks for texts (blocks, errors, the prompt)", () => {
    const t = (text: string) => step(1, { blocks: [{ type: "text", text }] });
    expect(compareSteps(t("a  b\n c "), t("a b c"))).toEqual(["observation"]);
    expect(compareSteps(t("a  b\n c "), t("a b c"), { normalizeWhitespace: true })).toEqual([]);
    expect(compareSteps(t("You rolled 3."), t("You rolled 5."), { masks: [/rolled \d+/] })).toEqual([]);
    expect(compareSteps(t("You rolled 3."), t("You threw 5."), { masks: [/\d+/] })).toEqual(["observation"]);
    const e = (error: string) => step(1, { ok: false, error });
    expect(compareSteps(e("took 31 ms"), e("took 7 ms"), { masks: [/\d+ ms/g] })).toEqual([]);
    const a = trajectory("a", { prompt: [{ type: "text", text: "Seed 17:  go" }] });
    const b = trajectory("b", { prompt: [{ type: "text", text: "Seed 4: go" }] });
    expect(diffTrajectories(a, b).header).toEqual(["prompt"]);
    expect(diffTrajectories(a, b, { normalizeWhitespace: true, masks: [/Seed \d+/] }).header).toEqual([]);
    expect(diffTrajectories(a, b, { ignore: ["prompt"] }).header).toEqual([]);
    expect(diffTrajectories(a, b, { ignore: ["prompt.0.text"] }).header).toEqual([]);
  });

  it("diffTrajectories: options apply to every step; missing steps always differ; totals within n × tolerance", () => {
    const a = trajectory("a", { steps: [rolled(3), rolled(4, { index: 2 }), step(3, { finished: true })] });
    const b = trajectory("b", { steps: [rolled(5), rolled(4, { index: 2, reward: 0.41 })] });
    const loose = diffTrajectories(a, b, { ignore: ["observation", "metadata"], rewardTolerance: 0.25 });
    expect(loose.steps.map((d) => d.fields)).toEqual([
      [],
      [],
      ["tool", "input", "observation", "reward", "finished", "ok", "error", "metadata"],
    ]);
    expect(loose.firstDifference).toBe(3);
    const same = trajectory("c", { steps: a.steps.slice(0, 2) });
    const near = trajectory("d", {
      steps: [rolled(3, { reward: 0.35 }), rolled(4, { index: 2, reward: 0.45 })],
    });
    // Each reward is 0.05 off: the totals (0.1 off) are within 2 steps × 0.05.
    expect(diffTrajectories(same, near, { rewardTolerance: 0.05 })).toMatchObject({
      differing: 0,
      header: [],
    });
    expect(diffTrajectories(same, near, { rewardTolerance: 0.04 }).header).toEqual(["total_reward"]);
  });

  it("parseIgnore names what is wrong", () => {
    expect(parseIgnore("metadata.seed")).toEqual({ root: "metadata", path: ["seed"] });
    expect(parseIgnore("blocks[0].text")).toEqual({ root: "observation", path: ["0", "text"] });
    expect(parseIgnore(" reward ")).toEqual({ field: "reward" });
    expect(() => parseIgnore("rewards")).toThrow(/cannot ignore "rewards": expected one of tool, input/);
    expect(() => parseIgnore("reward.x")).toThrow(
      /a path starts with input, observation, metadata or prompt/,
    );
    expect(() => parseIgnore("metadata..x")).toThrow(/an empty step/);
    expect(() => compareSteps(step(1), step(1), { ignore: ["nope"] })).toThrow(/cannot ignore "nope"/);
  });
});
