// @vitest-environment jsdom
// The episode page's step card keeps a finished step's SSE stream folded away and draws it only once
// opened: a 50 MiB result passes as thousands of frames, and the closed log was rebuilt on every
// update of the page (bench: the watching cases of scripts/bench-ui-watch.ts).
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { StepCard } from "@/components/episode/step-card";
import { commentFrames, step } from "../../episodes/helpers";

afterEach(cleanup);

const FRAMES = 1000;
const events = commentFrames(FRAMES);

describe("the SSE stream of a finished step", () => {
  it("is not in the page until opened", async () => {
    const noop = () => {};
    render(
      <StepCard
        blocksId="s"
        step={step(1, { events })}
        live={false}
        cumulative={0}
        highlighted={false}
        onLink={noop}
      />,
    );
    const summary = screen.getByText(`SSE stream · ${FRAMES} events · task_id task-1`);
    expect(document.body.textContent).not.toContain(`frame ${FRAMES - 1};`);

    const details = summary.closest("details")!;
    await act(async () => {
      details.open = true;
      fireEvent(details, new Event("toggle"));
    });
    expect(document.body.textContent).toContain(`frame ${FRAMES - 1};`);
  });
});
