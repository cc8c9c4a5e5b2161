// What the quality checks analyse (isomorphic): the sampled tasks' objects and the episodes each
// policy played on them, as recorded — the same trajectories the playground shows.

import type { JsonObject } from "@/lib/ors/protocol";
import type { Trajectory } from "@/lib/trajectory/schema";

/** One episode a policy played, as its run and its recording tell it. */
export interface PlayedEpisode {
  task: number;
  repeat: number;
  /** The run's episode status: `done` (played to its end), `errored`, `cancelled` ... */
  status: string;
  error: string | null;
  /** The episode's reward (its steps' sum), when done. */
  reward: number | null;
  /** The recorded episode (null when none was recorded: `/create` failed). */
  trajectory: Trajectory | null;
}

/** A `/call` a server answered with a 5xx (no step is recorded for it: it had no SSE answer). */
export interface CallFailure {
  /** The session it was made in. */
  sid: string;
  status: number;
  detail: string;
}

export interface QualityData {
  env: string;
  split: string;
  /** The sampled tasks and their objects (`/task`; null when it could not be read). */
  tasks: { index: number; task: JsonObject | null }[];
  /** The environment's tools, by name (for what was called). */
  tools: string[];
  random: PlayedEpisode[];
  /** The random episodes' actions played again, task by task. */
  randomReplay: PlayedEpisode[];
  /** With an oracle: its episodes and their replay; null without. */
  oracle: PlayedEpisode[] | null;
  oracleReplay: PlayedEpisode[] | null;
  callFailures: CallFailure[];
}

/** Every played episode with the role it was played in. */
export function allEpisodes(data: QualityData): { role: string; episode: PlayedEpisode }[] {
  const out: { role: string; episode: PlayedEpisode }[] = [];
  const add = (role: string, list: PlayedEpisode[] | null) => {
    for (const episode of list ?? []) out.push({ role, episode });
  };
  add("random", data.random);
  add("random-replay", data.randomReplay);
  add("oracle", data.oracle);
  add("oracle-replay", data.oracleReplay);
  return out;
}

/** The prompt's text blocks, joined. */
export function promptText(t: Trajectory | null): string {
  return (t?.prompt ?? [])
    .filter((b) => b.type === "text")
    .map((b) => (b as { text: string }).text)
    .join("\n");
}

/** A value in a line: JSON, cut at `max` characters. */
export function brief(value: unknown, max = 80): string {
  const s = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
