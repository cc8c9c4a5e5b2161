// Review samples (docs/review.md "Queues"): seeded, uniform or stratified by reward, proportional
// with every reward level represented, checked by counting.
import { describe, expect, it } from "vitest";
import { allocate, sampleEpisodes, strataOf } from "@/lib/review/sampling";

const episodes = (rewards: (number | null)[]) => rewards.map((reward, i) => ({ id: `e${i}`, reward }));

describe("reward groups", () => {
  it("one group per distinct reward when there are few, lowest first, unscored last", () => {
    const g = strataOf(episodes([1, 0, 0, null, 1, 0.5]));
    expect(g.map((s) => s.map((e) => e.reward))).toEqual([[0, 0], [0.5], [1, 1], [null]]);
  });

  it("quantile bands when rewards are many, ties kept together", () => {
    const rewards = Array.from({ length: 20 }, (_, i) => i / 10);
    rewards.push(0.1, 0.1);
    const g = strataOf(episodes(rewards), 4);
    expect(g).toHaveLength(4);
    expect(g.flat()).toHaveLength(22);
    for (let i = 1; i < g.length; i++) expect(g[i - 1]!.at(-1)!.reward!).toBeLessThan(g[i]![0]!.reward!);
  });
});

describe("allocation", () => {
  it("is proportional by largest remainders", () => {
    // 10 of (50, 30, 20): exactly 5, 3, 2.
    expect(allocate([50, 30, 20], 10)).toEqual([5, 3, 2]);
    // 4 of (6, 3, 1): exact 2.4, 1.2, 0.4 → floors 2, 1, 0 → the small group gets its one → 2, 1, 1.
    expect(allocate([6, 3, 1], 4)).toEqual([2, 1, 1]);
  });

  it("never more than a group holds, nor more than there is", () => {
    expect(allocate([2, 1], 10)).toEqual([2, 1]);
    expect(allocate([0, 5], 2)).toEqual([0, 2]);
    expect(allocate([9, 1], 1)).toEqual([1, 0]);
  });
});

describe("samples", () => {
  const many = episodes(Array.from({ length: 100 }, (_, i) => (i % 10 === 0 ? 1 : 0)));

  it("is the same for the same seed and another for another, in the items' order", () => {
    const a = sampleEpisodes(many, 20, { seed: 7 });
    expect(a).toHaveLength(20);
    expect(sampleEpisodes(many, 20, { seed: 7 })).toEqual(a);
    expect(sampleEpisodes(many, 20, { seed: 8 })).not.toEqual(a);
    const order = a.map((e) => Number(e.id.slice(1)));
    expect(order).toEqual([...order].sort((x, y) => x - y));
  });

  it("stratified by reward: 10 rewarded of 100, sampled 20 → exactly 2 rewarded and 18 not", () => {
    for (const seed of [1, 2, 3]) {
      const s = sampleEpisodes(many, 20, { seed, stratified: true });
      expect(s).toHaveLength(20);
      expect(s.filter((e) => e.reward === 1)).toHaveLength(2);
      expect(new Set(s.map((e) => e.id)).size).toBe(20);
    }
  });

  it("takes everything when asked for more than there is", () => {
    expect(sampleEpisodes(many.slice(0, 5), 40, { stratified: true })).toEqual(many.slice(0, 5));
  });
});
