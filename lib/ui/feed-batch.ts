// A batch of live-feed events applied to a trajectory in one pass: the same result as folding
// applyFeedEvent (lib/trajectory/feed.ts) over it, but a burst of thousands of frames copies the
// trajectory, its steps and each touched step's frames once per batch, not once per event.
import { applyFeedEvent, type LiveEvent } from "@/lib/trajectory/feed";
import { totalReward } from "@/lib/trajectory/model";
import type { Trajectory, TrajectoryStep } from "@/lib/trajectory/schema";

/** Where the step with `index` is in `steps` (sorted by index), or -1. */
function positionOf(steps: readonly TrajectoryStep[], index: number): number {
  // New frames are for the newest steps: look from the end.
  for (let i = steps.length - 1; i >= 0; i--) if (steps[i]!.index === index) return i;
  return -1;
}

/** `t` with every event of `events` applied in order (events of other trajectories are ignored). */
export function applyFeedEvents(t: Trajectory, events: readonly LiveEvent[]): Trajectory {
  let out = t;
  let steps: TrajectoryStep[] | null = null;
  // Steps this batch made (copies, or received in a `step` event): their frames may grow in place.
  const owned = new Set<TrajectoryStep>();
  for (const e of events) {
    if (e.id !== t.id) continue;
    if (e.type === "frame") {
      steps ??= [...out.steps];
      const at = positionOf(steps, e.index);
      if (at < 0) continue;
      let step = steps[at]!;
      if (step.events.length !== e.n) continue;
      if (!owned.has(step)) {
        step = { ...step, events: [...step.events] };
        steps[at] = step;
        owned.add(step);
      }
      step.events.push(e.event);
    } else if (e.type === "step") {
      steps ??= [...out.steps];
      const at = positionOf(steps, e.step.index);
      const step = { ...e.step, events: [...e.step.events] };
      owned.add(step);
      if (at >= 0) steps[at] = step;
      else {
        steps.push(step);
        steps.sort((a, b) => a.index - b.index);
      }
    } else {
      // prompt, reprompt, ended, started, activity: none of them touches the steps.
      out = applyFeedEvent(out, e);
    }
  }
  return steps ? { ...out, steps, total_reward: totalReward(steps) } : out;
}
