// @vitest-environment jsdom
// The reward chart marks steps called after the episode finished: drawn apart (hatched, beyond a
// dashed end line), named as not counted, and left out of the cumulative line and total.
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { RewardChart } from "@/components/trajectories/reward-chart";
import type { TrajectoryStep } from "@/lib/trajectory/schema";
import { pendingStep } from "@/lib/trajectory/step";

afterEach(cleanup);

const step = (index: number, reward: number, after_end = false): TrajectoryStep => ({
  ...pendingStep({ index, tool: "t", input: {}, task_id: null, started_at: index, after_end }),
  ok: true,
  reward,
  finished: index === 2,
});

describe("RewardChart", () => {
  it("marks after-end steps and does not count them", () => {
    const { container } = render(<RewardChart steps={[step(1, 1), step(2, 1), step(3, 5, true)]} />);
    const chart = screen.getByRole("img");
    expect(chart.getAttribute("aria-label")).toBe(
      "Reward per step chart: 3 steps, total 2; step 3 was called after the episode finished and does not count",
    );
    const bars = [...container.querySelectorAll("g[data-after-end]")];
    expect(bars).toHaveLength(1);
    expect(bars[0]!.querySelector("title")!.textContent).toBe(
      "Step 3: called after the episode finished, not counted (reward +5)",
    );
    expect(bars[0]!.querySelector("rect")!.getAttribute("fill")).toMatch(/^url\(#after-end-/);
    expect(container.querySelector('[data-testid="episode-end"]')).not.toBeNull();
    // The cumulative line has a point per counted step only.
    const d = container.querySelector("path")!.getAttribute("d")!;
    expect(d.split(/[ML]/).filter(Boolean)).toHaveLength(2);
    expect(screen.getByText("after the end (not counted)")).toBeTruthy();
  });

  it("draws no end line when every step counts", () => {
    const { container } = render(<RewardChart steps={[step(1, 1), step(2, 0)]} />);
    expect(container.querySelector('[data-testid="episode-end"]')).toBeNull();
    expect(container.querySelectorAll("g[data-after-end]")).toHaveLength(0);
    expect(screen.getByRole("img").getAttribute("aria-label")).toBe(
      "Reward per step chart: 2 steps, total 1",
    );
  });
});
