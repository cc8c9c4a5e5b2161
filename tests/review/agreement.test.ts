// Verifier agreement and reviewer agreement against figures computed by hand (docs/review.md
// "Verifier agreement"): Wilson intervals, the confusion matrix and its rates, Cohen's κ.
import { describe, expect, it } from "vitest";
import { cohensKappa, confusionMatrix, proportion, verifierRates, wilson95 } from "@/lib/review/agreement";
import { humanVerdict, majority, verdictRuleOf, verifierSuccess } from "@/lib/review/verdict";

describe("Wilson 95% interval", () => {
  it("2 of 10 by hand: centre 0.283259, half-width 0.226578", () => {
    // p = 0.2, z² = 3.841459; centre = (0.2 + z²/20) / (1 + z²/10); half = z·√(0.016 + z²/400) / (1 + z²/10).
    const [lo, hi] = wilson95(2, 10)!;
    expect(lo).toBeCloseTo(0.056681, 5);
    expect(hi).toBeCloseTo(0.509837, 5);
  });

  it("stays inside [0, 1] at 0 of n and n of n, and is absent for n = 0", () => {
    const [lo0, hi0] = wilson95(0, 5)!;
    expect(lo0).toBe(0);
    // z² / (n + z²) = 3.841459 / 8.841459
    expect(hi0).toBeCloseTo(0.434482, 5);
    const [lo5, hi5] = wilson95(5, 5)!;
    expect(lo5).toBeCloseTo(1 - 0.434482, 5);
    expect(hi5).toBe(1);
    expect(wilson95(0, 0)).toBeNull();
    expect(proportion(0, 0)).toEqual({ k: 0, n: 0, rate: null, ci95: null });
  });
});

describe("confusion matrix and the verifier's error rates", () => {
  // 10 episodes: verifier success × human correct.
  const items = [
    { id: "a", verifier: true, human: true },
    { id: "b", verifier: true, human: true },
    { id: "c", verifier: true, human: true },
    { id: "d", verifier: true, human: false },
    { id: "e", verifier: true, human: false },
    { id: "f", verifier: false, human: true },
    { id: "g", verifier: false, human: false },
    { id: "h", verifier: false, human: false },
    { id: "i", verifier: false, human: false },
    { id: "j", verifier: false, human: false },
  ];

  it("puts each episode in its cell", () => {
    expect(confusionMatrix(items)).toEqual({
      tp: ["a", "b", "c"],
      fp: ["d", "e"],
      fn: ["f"],
      tn: ["g", "h", "i", "j"],
    });
  });

  it("FP rate = FP / (FP + TN) = 2/6, FN rate = FN / (FN + TP) = 1/4, agreement 7/10", () => {
    const r = verifierRates(confusionMatrix(items));
    expect(r.falsePositive).toMatchObject({ k: 2, n: 6, rate: 2 / 6 });
    expect(r.falseNegative).toMatchObject({ k: 1, n: 4, rate: 1 / 4 });
    expect(r.agreement).toMatchObject({ k: 7, n: 10, rate: 0.7 });
    expect(r.falsePositive.ci95).toEqual(wilson95(2, 6));
  });
});

describe("Cohen's κ", () => {
  it("10 items, 7 agreements, A says yes 6 times and B 5: κ = (0.7 − 0.5) / 0.5 = 0.4", () => {
    const A = [true, true, true, true, true, true, false, false, false, false];
    const B = [true, true, true, true, false, false, true, false, false, false];
    const k = cohensKappa(A.map((a, i) => [a, B[i]!] as const));
    expect(k.n).toBe(10);
    expect(k.observed).toBeCloseTo(0.7, 12);
    // pe = 0.6·0.5 + 0.4·0.5
    expect(k.expected).toBeCloseTo(0.5, 12);
    expect(k.kappa).toBeCloseTo(0.4, 12);
  });

  it("works over more than two categories, and is 1 for perfect agreement", () => {
    // 3 categories, 6 items: agree on 4. A: x x y y z z; B: x y y y z x.
    // po = 4/6; pA = (2,2,2)/6; pB = (2,3,1)/6 → pe = (4 + 6 + 2)/36 = 1/3; κ = (2/3 − 1/3)/(2/3) = 0.5
    const A = ["x", "x", "y", "y", "z", "z"];
    const B = ["x", "y", "y", "y", "z", "x"];
    expect(cohensKappa(A.map((a, i) => [a, B[i]!] as const)).kappa).toBeCloseTo(0.5, 12);
    expect(
      cohensKappa([
        [true, true],
        [false, false],
      ]).kappa,
    ).toBe(1);
  });

  it("is undefined with no items, or when both always gave the same one answer", () => {
    expect(cohensKappa([]).kappa).toBeNull();
    expect(
      cohensKappa([
        [true, true],
        [true, true],
      ]),
    ).toEqual({ n: 2, observed: 1, expected: 1, kappa: null });
  });
});

describe("verdicts", () => {
  const schema = {
    type: "object",
    properties: {
      correct: { type: "boolean" },
      reward_should_be: { type: "number" },
      failure: { type: "string", enum: ["none", "format", "wrong"] },
      note: { type: "string" },
    },
  };

  it("reads `correct` first, then `reward_should_be`, then the first boolean, or the field named", () => {
    expect(verdictRuleOf(schema)).toEqual({ field: "correct", kind: "boolean" });
    const { correct: _c, ...rest } = schema.properties;
    expect(verdictRuleOf({ ...schema, properties: rest })).toEqual({
      field: "reward_should_be",
      kind: "reward",
    });
    expect(verdictRuleOf({ type: "object", properties: { ok: { type: ["boolean", "null"] } } })).toEqual({
      field: "ok",
      kind: "boolean",
    });
    expect(verdictRuleOf(schema, "reward_should_be")).toEqual({ field: "reward_should_be", kind: "reward" });
    expect(verdictRuleOf(schema, "note")).toBeNull();
    expect(verdictRuleOf({ type: "object", properties: { note: { type: "string" } } })).toBeNull();
  });

  it("a boolean says it; a target reward is a success at the threshold", () => {
    expect(humanVerdict({ correct: false }, { field: "correct", kind: "boolean" }, 1)).toBe(false);
    expect(humanVerdict({}, { field: "correct", kind: "boolean" }, 1)).toBeNull();
    const target = { field: "reward_should_be", kind: "reward" } as const;
    expect(humanVerdict({ reward_should_be: 1 }, target, 1)).toBe(true);
    expect(humanVerdict({ reward_should_be: 0.5 }, target, 1)).toBe(false);
    expect(humanVerdict({ reward_should_be: 0.5 }, target, 0.5)).toBe(true);
  });

  it("the majority of reviewers decides; a tie is disputed", () => {
    expect(majority([true, true, false])).toBe(true);
    expect(majority([false])).toBe(false);
    expect(majority([true, false])).toBeNull();
  });

  it("the verifier succeeds when the episode finished with a reward at the threshold", () => {
    expect(verifierSuccess({ end_reason: "finished", total_reward: 1 }, 1)).toBe(true);
    expect(verifierSuccess({ end_reason: "finished", total_reward: 0.9 }, 1)).toBe(false);
    expect(verifierSuccess({ end_reason: "user_closed", total_reward: 1 }, 1)).toBe(false);
  });
});

describe("keys of a label form", () => {
  it("gives each boolean and enum value a digit in the schema's order, at most nine", async () => {
    const { choicesOf, choose } = await import("@/lib/review/choices");
    const c = choicesOf({
      type: "object",
      properties: {
        correct: { type: "boolean" },
        note: { type: "string" },
        failure: { type: "string", enum: ["none", "format"], title: "Failure" },
      },
    });
    expect(c.map((x) => [x.key, x.field, x.value, x.label])).toEqual([
      ["1", "correct", true, "correct: yes"],
      ["2", "correct", false, "correct: no"],
      ["3", "failure", "none", "Failure: none"],
      ["4", "failure", "format", "Failure: format"],
    ]);
    expect(choose({ note: "x" }, c[1]!)).toEqual({ note: "x", correct: false });
    const many = choicesOf({
      type: "object",
      properties: { level: { type: "integer", enum: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10] } },
    });
    expect(many.map((x) => x.key)).toEqual(["1", "2", "3", "4", "5", "6", "7", "8", "9"]);
  });
});
