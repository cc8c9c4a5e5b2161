// @vitest-environment jsdom
// The trajectory page's step detail draws a step's SSE frames only when they are opened, and then
// the latest MAX_FRAMES: a 50 MiB result passes as thousands of frames, and a watched live step
// re-renders with every batch of new ones (bench: the watching cases of scripts/bench-ui-watch.ts).
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_FRAMES, StepDetail } from "@/components/trajectories/step-detail";
import { commentFrames, step } from "../../episodes/helpers";

afterEach(cleanup);

const FRAMES = 1000;
const events = commentFrames(FRAMES);

describe("the SSE frames of a huge step", () => {
  it("are not in the page until opened, then the latest ones, all on request", async () => {
    render(<StepDetail step={step(1, { events })} cumulative={0} />);
    expect(screen.getByText(`SSE frames (${FRAMES})`)).toBeTruthy();
    expect(screen.queryByRole("list", { name: "SSE frames" })).toBeNull();

    const details = screen.getByText(`SSE frames (${FRAMES})`).closest("details")!;
    await act(async () => {
      details.open = true;
      fireEvent(details, new Event("toggle"));
    });
    const list = screen.getByRole("list", { name: "SSE frames" });
    expect(list.querySelectorAll("li")).toHaveLength(MAX_FRAMES + 1);
    expect(list.textContent).toContain(`frame ${FRAMES - 1};`);
    expect(list.textContent).not.toContain("frame 0;");
    expect(screen.getByText(/800 earlier frames not shown/)).toBeTruthy();

    await act(async () => {
      screen.getByRole("button", { name: "Show all 1,000" }).click();
    });
    expect(list.querySelectorAll("li")).toHaveLength(FRAMES);
  });
});
