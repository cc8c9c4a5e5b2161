// The `replay` policy (docs/runs.md "Policies"): the actions of recorded episodes played again,
// one call per turn in their order — a recorded run's, task by task and repeat by repeat, or one
// trajectory's — on the same server or another: a run re-scored on a new environment version
// without a model. Steps after an episode's end are not replayed. Isomorphic: the recorded
// episodes come from `source`.
import type { Trajectory } from "@/lib/trajectory/schema";
import { type Policy, stopTurn } from "./policy";

/** Where the recorded episodes come from. */
export interface ReplaySource {
  /** Words for the run page, e.g. `run r8x… ` or `trajectory Xk3…`. */
  label: string;
  /** The recorded episode for a task and repeat, or null when there is none. */
  episode(taskIndex: number | null, repeat: number): Promise<Trajectory | null>;
}

export function createReplayPolicy(source: ReplaySource): Policy {
  return {
    kind: "replay",
    label: `replay of ${source.label}`,
    async startEpisode(ctx) {
      const t = await source.episode(ctx.taskIndex, ctx.repeat);
      if (!t)
        throw new Error(
          `no recorded episode of ${source.label} for task ${ctx.taskIndex ?? "?"} (repeat ${ctx.repeat}) to replay`,
        );
      const actions = t.steps.filter((s) => !s.after_end);
      let i = 0;
      return {
        async next() {
          const s = actions[i++];
          if (!s) return stopTurn("no_more_actions");
          return {
            calls: [{ id: s.agent?.call_id ?? `call_${s.index}`, tool: s.tool, input: s.input }],
            message: s.agent?.message ?? null,
            usage: null,
          };
        },
      };
    },
  };
}
