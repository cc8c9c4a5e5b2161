// The `random` policy (docs/runs.md "Policies"): each turn one call of a random tool with a random
// valid input drawn from its JSON Schema (lib/schema-inputs.ts), seeded per episode from the
// run's seed, the task and the repeat — the same run replays the same calls. A smoke test and a
// fuzzer of an environment. Isomorphic.
import { hashInt, seededRandom } from "@/envs/shared/seeded-random";
import { randomInput } from "@/lib/schema-inputs";
import type { Policy } from "./policy";
import { stopTurn } from "./policy";

/** The random source of one episode: the same seed, task and repeat give the same calls. */
export function episodeRandom(seed: number, taskIndex: number | null, repeat: number): () => number {
  return seededRandom(hashInt(hashInt(taskIndex ?? 0, seed >>> 0), repeat));
}

export function createRandomPolicy(seed: number): Policy {
  return {
    kind: "random",
    label: `random (seed ${seed})`,
    startEpisode(ctx) {
      const rand = episodeRandom(seed, ctx.taskIndex, ctx.repeat);
      let turn = 0;
      return {
        async next() {
          turn++;
          // Tools in a random order; the first whose input can be generated is called.
          const order = ctx.tools.map((t) => ({ t, k: rand() })).sort((a, b) => a.k - b.k);
          for (const { t } of order) {
            const input = randomInput(t.input_schema, rand);
            if (input.ok)
              return {
                calls: [{ id: `random_${turn}`, tool: t.name, input: input.value }],
                message: null,
                usage: null,
              };
          }
          return stopTurn(
            "policy_stop",
            ctx.tools.length
              ? "no tool's input could be generated from its schema"
              : "the environment has no tools",
          );
        },
      };
    },
  };
}
