// What a trainer takes from a run (docs/runs.md "Exports"), beside chat JSONL and ATIF: the tasks'
// learning signal as curriculum weights (JSONL `{task, p, signal}`), the verifiers library's results
// JSONL (`vf-eval`'s columns: prompt and completion as chat messages, task, reward, info, timings),
// and the rows of a Parquet file of the prompts as RL trainers such as veRL read them
// (`data_source`, `prompt`, `reward_model`, `extra_info`; written by ./parquet.ts). Isomorphic.
import type { Block } from "@/lib/ors/protocol";
import { functionNames } from "@/lib/ors/protocol/tool-schema";
import type { Trajectory } from "@/lib/trajectory/schema";
import { type ChatMessage, chatMessages, transcriptOf } from "./conversation";
import type { RunSummary } from "./summary";

/** One task's curriculum weight: its success rate p̂ and the chance a group gives a gradient. */
export interface TaskWeight {
  task: number;
  p: number;
  signal: number;
}

/** The tasks with a counted attempt, as curriculum weights (`export?format=task-weights`). */
export function taskWeights(s: Pick<RunSummary, "tasks">): TaskWeight[] {
  return s.tasks
    .filter((t) => t.p !== null && t.signal !== null)
    .map((t) => ({ task: t.index, p: t.p!, signal: t.signal! }));
}

/** One episode as a line of the verifiers library's results JSONL. */
export function verifiersLine(t: Trajectory): Record<string, unknown> {
  const names = functionNames(t.tools ?? []);
  const messages = chatMessages(t.prompt ?? [], transcriptOf(t), {
    functionName: names.toFunction,
    end: t.agent_end ?? null,
  });
  const first = messages.findIndex((m) => m.role === "assistant");
  const split = first < 0 ? messages.length : first;
  const index = t.task && "index" in t.task ? t.task.index : null;
  const endedAt = t.ended_at ?? t.steps.at(-1)?.ended_at ?? t.started_at;
  const generation = t.steps.reduce((a, s) => a + (s.latency_ms ?? 0), 0);
  return {
    id: index,
    example_id: index,
    prompt: messages.slice(0, split),
    completion: messages.slice(split) as ChatMessage[],
    task: t.env,
    info: {
      trajectory_id: t.id,
      server: t.server,
      split: t.task && "split" in t.task ? t.task.split : null,
      run_id: t.run?.id ?? null,
      repeat: t.run?.repeat ?? null,
      end_reason: t.end_reason,
      finished: t.end_reason === "finished",
    },
    reward: t.total_reward,
    generation_ms: generation,
    scoring_ms: 0,
    total_ms: Math.max(0, endedAt - t.started_at),
  };
}

/** The prompt's text (images said as such: a Parquet prompt column is text). */
function promptText(blocks: Block[]): string {
  return blocks.map((b) => (b.type === "text" ? b.text : `[image ${b.mimeType}]`)).join("\n\n");
}

/** One task's prompt as a veRL-style row. */
export interface PromptRow {
  data_source: string;
  prompt: { role: string; content: string }[];
  reward_model: { style: string; ground_truth: string };
  extra_info: {
    server: string;
    env: string;
    split: string;
    index: number;
    run_id: string;
    /** Its success rate and learning signal in the run (null below two counted attempts). */
    p: number | null;
    signal: number | null;
  };
}

/**
 * A task's row from the first recorded episode of it: the environment is the reward (`style:
 * "ors"`: the trainer plays the task on the ORS server to score a rollout), so `ground_truth` is empty.
 */
export function promptRow(
  t: Trajectory,
  run: { id: string; server: string; env: string; split: string },
  weight?: TaskWeight,
): PromptRow {
  const index = t.task && "index" in t.task ? t.task.index : -1;
  return {
    data_source: `ors/${run.server}/${run.env}`,
    prompt: [{ role: "user", content: promptText(t.prompt ?? []) }],
    reward_model: { style: "ors", ground_truth: "" },
    extra_info: {
      server: run.server,
      env: run.env,
      split: run.split,
      index,
      run_id: run.id,
      p: weight?.p ?? null,
      signal: weight?.signal ?? null,
    },
  };
}
