// `guess`: a multi-step environment. Guess a number from 1 to 100 with higher/lower feedback;
// the fewer guesses, the higher the reward. Per-session state counts the guesses.
import { z } from "zod";
import { defineEnvironment, defineTool, type ToolContext, text } from "@/lib/ors/sdk";
import { randomInt, seededRandom } from "./shared/seeded-random";

export type GuessTask = { target: number };
export type GuessState = { steps: number; low: number; high: number };

type Ctx = ToolContext<GuessTask, GuessState>;

const SPLIT_SIZES: Record<string, number> = { train: 100, test: 20 };

/** Reward for finding the number in `steps` guesses: 1 on the first guess, 0.1 less per extra guess. */
export function guessReward(steps: number): number {
  return Math.max(0, Math.round((1 - (steps - 1) / 10) * 100) / 100);
}

const guess = defineTool({
  description:
    'Guess the hidden number. Answers "higher" (the number is bigger), "lower" (it is smaller) ' +
    'or "correct", which ends the episode with a reward of max(0, 1 - (guesses - 1) / 10).',
  input: z.object({
    number: z.number().int().min(1).max(100).describe("Your guess, an integer from 1 to 100"),
  }),
  run: ({ number }, { task, state }: Ctx) => {
    state.steps += 1;
    if (number === task.target) {
      const reward = guessReward(state.steps);
      return {
        blocks: [text(`correct — ${number} found in ${state.steps} guess${state.steps === 1 ? "" : "es"}`)],
        reward,
        finished: true,
        metadata: { steps: state.steps },
      };
    }
    if (number < task.target) state.low = Math.max(state.low, number + 1);
    else state.high = Math.min(state.high, number - 1);
    return {
      blocks: [text(number < task.target ? "higher" : "lower")],
      reward: 0,
      finished: false,
      metadata: { steps: state.steps },
    };
  },
});

const hint = defineTool({
  description:
    "Get a hint: a range of at most 20 numbers that holds the hidden number, narrowed by your " +
    "guesses so far. Does not count as a guess.",
  run: (_input, { task, state }: Ctx) => {
    const bucketLow = Math.floor((task.target - 1) / 20) * 20 + 1;
    const low = Math.max(bucketLow, state.low);
    const high = Math.min(bucketLow + 19, state.high);
    return { blocks: [text(`The number is between ${low} and ${high}.`)], reward: 0, finished: false };
  },
});

export const guessEnv = defineEnvironment<GuessTask, GuessState>({
  name: "guess",
  description:
    "Multi-step: find a hidden number from 1 to 100 with `guess` (answers higher, lower or correct) " +
    "and an optional `hint`. Reward 1 for a first-guess hit, 0.1 less for each extra guess.",
  splits: ["train", "test"],
  listTasks: (split) => {
    const rand = seededRandom(split === "train" ? 7001 : 7002);
    return Array.from({ length: SPLIT_SIZES[split] ?? 0 }, () => ({ target: randomInt(rand, 1, 100) }));
  },
  createState: () => ({ steps: 0, low: 1, high: 100 }),
  getPrompt: () =>
    "I am thinking of a number from 1 to 100. Find it with the `guess` tool; I will answer " +
    '"higher", "lower" or "correct". Fewer guesses earn a higher reward. `hint` narrows the range.',
  tools: { guess, hint },
});
