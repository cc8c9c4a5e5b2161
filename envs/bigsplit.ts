// `bigsplit`: a 100,000-task `train` split served by index (`numTasks` + `getTask`): each task is
// derived from its index on demand, so no request materializes the whole split.
import { z } from "zod";
import { defineEnvironment, defineTool, type ToolContext, text } from "@/lib/ors/sdk";
import { hashInt } from "./shared/seeded-random";

export const BIGSPLIT_SIZE = 100_000;
export const BIGSPLIT_TEST_SIZE = 1_000;
export type BigsplitTask = { id: number; question: string; answer: string };

/** The task at `index` of `split`: the same every time, computed from the index alone. */
export function bigsplitTask(split: string, index: number): BigsplitTask {
  const h = hashInt(index, split === "train" ? 0x5eed : 0x7e57);
  const a = (h % 900) + 100;
  const b = ((h >>> 10) % 900) + 100;
  return { id: index, question: `Task #${index}: what is ${a} + ${b}?`, answer: String(a + b) };
}

const SIZES: Record<string, number> = { train: BIGSPLIT_SIZE, test: BIGSPLIT_TEST_SIZE };

const submit = defineTool({
  description: "Submit the sum. Ends the episode: reward 1 if correct, 0 if not.",
  input: z.object({ answer: z.string().describe('The sum, e.g. "1234"') }),
  run: ({ answer }, { task }: ToolContext<BigsplitTask>) => {
    const correct = answer.trim() === task.answer;
    return {
      blocks: [text(correct ? "Correct!" : `Incorrect. The answer was ${task.answer}.`)],
      reward: correct ? 1 : 0,
      finished: true,
    };
  },
});

export const bigsplit = defineEnvironment<BigsplitTask>({
  name: "bigsplit",
  description:
    "A 100,000-task train split (and a 1,000-task test split) served by index: tasks are computed " +
    "from their index, never all materialized. For /num_tasks, /task and /task_range on big splits.",
  splits: ["train", "test"],
  numTasks: (split) => SIZES[split] ?? 0,
  getTask: (split, index) => bigsplitTask(split, index),
  getPrompt: ({ task }) => task.question,
  tools: { submit },
});
