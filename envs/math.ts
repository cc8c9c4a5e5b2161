// `math`: a single-step environment like the spec's examples. ~1,000 generated arithmetic tasks
// (seeded, identical on every run), one `submit` tool, reward 1 or 0, finished after one answer.
import { z } from "zod";
import { defineEnvironment, defineTool, type ToolContext, text } from "@/lib/ors/sdk";
import { randomInt, seededRandom } from "./shared/seeded-random";

export type MathTask = { question: string; answer: string };

export const MATH_SPLIT_SIZES = { train: 800, test: 200 } as const;

function generateTask(rand: () => number): MathTask {
  const kind = randomInt(rand, 0, 4);
  const a = randomInt(rand, 2, 99);
  const b = randomInt(rand, 2, 99);
  switch (kind) {
    case 0:
      return { question: `What is ${a} + ${b}?`, answer: String(a + b) };
    case 1:
      return { question: `What is ${a + b} - ${b}?`, answer: String(a) };
    case 2: {
      const c = randomInt(rand, 2, 12);
      return { question: `What is ${a} * ${c}?`, answer: String(a * c) };
    }
    case 3:
      return { question: `If x + ${a} = ${a + b}, what is x?`, answer: String(b) };
    default: {
      const c = randomInt(rand, 2, 12);
      return { question: `What is ${a * c} / ${c}?`, answer: String(a) };
    }
  }
}

/** The tasks of a split, generated from a fixed seed per split. */
export function generateMathTasks(split: keyof typeof MATH_SPLIT_SIZES): MathTask[] {
  const rand = seededRandom(split === "train" ? 20_240_601 : 20_240_602);
  return Array.from({ length: MATH_SPLIT_SIZES[split] }, () => generateTask(rand));
}

/** Compares answers leniently: surrounding spaces ignored, "7" equals "7.0" and " 7 ". */
export function answersMatch(given: string, expected: string): boolean {
  const g = given.trim();
  if (g === expected) return true;
  if (g === "") return false;
  const gn = Number(g);
  const en = Number(expected);
  return Number.isFinite(gn) && Number.isFinite(en) && gn === en;
}

const submit = defineTool({
  description: "Submit your final answer to the problem. Ends the episode: reward 1 if correct, 0 if not.",
  input: z.object({ answer: z.string().describe('Your answer, e.g. "42"') }),
  run: ({ answer }, { task }: ToolContext<MathTask>) => {
    const correct = answersMatch(answer, task.answer);
    return {
      blocks: [text(correct ? "Correct!" : `Incorrect. The answer was ${task.answer}.`)],
      reward: correct ? 1 : 0,
      finished: true,
    };
  },
});

export const math = defineEnvironment<MathTask>({
  name: "math",
  description:
    "Single-step arithmetic: read the question in the prompt and call `submit` with the answer. " +
    "800 train and 200 test tasks, generated from a fixed seed.",
  splits: ["train", "test"],
  listTasks: (split) => generateMathTasks(split as keyof typeof MATH_SPLIT_SIZES),
  getPrompt: ({ task }) => task.question,
  tools: { submit },
});
