// `dice`: deliberately NON-deterministic, for the fork/replay tests of trajectories. `roll` gives a
// random number and a random reward; `echo` is deterministic, so a replay shows which steps differ.
import { z } from "zod";
import { defineEnvironment, defineTool, type ToolContext, text } from "@/lib/ors/sdk";

export type DiceState = { rolls: number };
type Ctx = ToolContext<Record<string, unknown>, DiceState>;

const roll = defineTool({
  description:
    "Roll a die. NON-deterministic on purpose: the number and the reward (a random value in [0, 1)) " +
    "differ on every call, so replaying this step gives a different observation.",
  input: z.object({
    sides: z.number().int().min(2).max(1000).default(6).describe("Number of sides of the die"),
  }),
  run: ({ sides }, { state }: Ctx) => {
    state.rolls += 1;
    const value = 1 + Math.floor(Math.random() * sides);
    const reward = Math.round(Math.random() * 1000) / 1000;
    return {
      blocks: [text(`You rolled ${value} (d${sides}).`)],
      reward,
      finished: false,
      metadata: { value, sides, roll: state.rolls },
    };
  },
});

const echo = defineTool({
  description: "Repeat the given text. Deterministic: the same input always gives the same output.",
  input: z.object({ text: z.string().max(10_000).describe("Text to echo back") }),
  run: ({ text: s }) => ({ blocks: [text(`echo: ${s}`)], reward: 0, finished: false }),
});

const stop = defineTool({
  description: "End the episode (deterministic, reward 0).",
  run: (_input, { state }: Ctx) => ({
    blocks: [text(`Stopped after ${state.rolls} roll${state.rolls === 1 ? "" : "s"}.`)],
    reward: 0,
    finished: true,
  }),
});

export const dice = defineEnvironment<Record<string, unknown>, DiceState>({
  name: "dice",
  description:
    "Deliberately non-deterministic: `roll` returns a random number and a random reward, `echo` is " +
    "deterministic, `stop` ends the episode. For fork and replay, which flag the steps that differ.",
  splits: ["train"],
  listTasks: () => [{ id: 0 }, { id: 1 }],
  createState: () => ({ rolls: 0 }),
  getPrompt: () =>
    "Roll the die with `roll` (random), repeat text with `echo` (deterministic), end with `stop`.",
  tools: { roll, echo, stop },
});
