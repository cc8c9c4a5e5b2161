// The leaderboard of an environment's split (docs/review.md "Leaderboards"): one row per run that
// played it — models, random, script oracles, people through share links — with the run's own
// figures (lib/runs/summary.ts, so a row says what the run's page says), the success rate's Wilson
// interval, tokens and time per episode; rows of the same policy grouped across environment
// versions (the tool specs the episodes were played with).
import "server-only";
import { createHash } from "node:crypto";
import type { RunPolicy } from "@/lib/runs/spec";
import { buildSummary, HISTOGRAM_BINS, type RunSummary, runConfigOf } from "@/lib/runs/summary";
import type { PlaygroundStore, RunRecord } from "@/lib/store/types";
import { type Proportion, proportion } from "./agreement";

/** The most runs a leaderboard reads (the newest). */
export const LEADERBOARD_MAX_RUNS = 500;

export interface LeaderboardRow {
  runId: string;
  status: RunSummary["status"];
  policyKind: RunPolicy["kind"];
  policyLabel: string;
  /** Runs of the same policy share it (a model, a seed, a script, a player). */
  group: string;
  /** The environment version the run played (`v1`, `v2` ... by first appearance), null when unknown. */
  version: string | null;
  /** Its fingerprint: a hash of the tool specs the episodes were played with. */
  versionHash: string | null;
  createdAt: number;
  /** Episodes played to their end (what the figures count), of those asked. */
  n: number;
  episodes: number;
  successRate: number | null;
  success: Proportion;
  meanReward: number | null;
  ci95: [number, number] | null;
  passAtK: Record<string, number | null>;
  /** Tokens per completed episode that reported usage (model policies), null otherwise. */
  tokensPerEpisode: number | null;
  /** The median time of an episode. */
  msPerEpisode: number | null;
  successAt: number;
}

export interface LeaderboardGroup {
  key: string;
  label: string;
  /** Its rows, oldest environment version first. */
  runIds: string[];
}

export interface Leaderboard {
  server: string;
  env: string;
  split: string;
  /** Best first: success rate, then mean reward, then the most episodes. */
  rows: LeaderboardRow[];
  groups: LeaderboardGroup[];
  versions: { version: string; hash: string; firstRun: string }[];
}

/** What makes two runs the same policy for grouping (its settings that change its play). */
export function policyGroup(p: RunPolicy): string {
  switch (p.kind) {
    case "model":
      return `model ${p.model} at ${p.endpoint === "cli" && "baseUrl" in p ? p.baseUrl : p.endpoint}`;
    case "random":
      return `random seed ${p.seed ?? 1}`;
    case "replay":
      return `replay of ${p.run ?? p.trajectory}`;
    case "script":
      return `script ${p.module}`;
    case "human":
      return `human ${p.player}`;
  }
}

/** The fingerprint of the environment a run played: its first recorded episode's tool specs. */
async function versionHashOf(store: PlaygroundStore, summary: RunSummary): Promise<string | null> {
  for (const task of summary.tasks)
    for (const id of task.episodeIds) {
      if (!id) continue;
      const t = await store.get(id);
      if (t?.tools) return createHash("sha256").update(JSON.stringify(t.tools)).digest("hex").slice(0, 12);
    }
  return null;
}

export function rowOf(
  run: RunRecord,
  s: RunSummary,
  versionHash: string | null,
): Omit<LeaderboardRow, "version"> {
  const policy = runConfigOf(run).policy;
  const successes = s.successRate === null ? 0 : Math.round(s.successRate * s.completed);
  const tokens = s.tokens.episodes ? s.tokens.total / s.tokens.episodes : null;
  return {
    runId: run.id,
    status: s.status,
    policyKind: policy.kind,
    policyLabel: s.policyLabel,
    group: policyGroup(policy),
    versionHash,
    createdAt: run.createdAt,
    n: s.completed,
    episodes: s.episodes,
    successRate: s.successRate,
    success: proportion(successes, s.completed),
    meanReward: s.meanReward,
    ci95: s.ci95,
    passAtK: s.passAtK,
    tokensPerEpisode: tokens,
    msPerEpisode: s.durationMs?.p50 ?? null,
    successAt: s.successAt,
  };
}

const byRank = (a: LeaderboardRow, b: LeaderboardRow) =>
  (b.successRate ?? -1) - (a.successRate ?? -1) ||
  (b.meanReward ?? Number.NEGATIVE_INFINITY) - (a.meanReward ?? Number.NEGATIVE_INFINITY) ||
  b.n - a.n ||
  a.createdAt - b.createdAt;

/** `GET /api/leaderboards/<server>/<env>/<split>`. */
export async function leaderboard(
  store: PlaygroundStore,
  server: string,
  env: string,
  split: string,
): Promise<Leaderboard> {
  const runs = (await store.listRuns({ server, env, limit: LEADERBOARD_MAX_RUNS })).items
    .filter((r) => r.split === split)
    .sort((a, b) => a.createdAt - b.createdAt);
  const partial: Omit<LeaderboardRow, "version">[] = [];
  for (const run of runs) {
    const a = await store.runAggregates(run.id, {
      successAt: runConfigOf(run).successAt,
      histogramBins: HISTOGRAM_BINS,
    });
    const s = buildSummary(run, a);
    partial.push(rowOf(run, s, await versionHashOf(store, s)));
  }
  // Versions named by first appearance, oldest run first.
  const versions: Leaderboard["versions"] = [];
  for (const r of partial)
    if (r.versionHash && !versions.some((v) => v.hash === r.versionHash))
      versions.push({ version: `v${versions.length + 1}`, hash: r.versionHash, firstRun: r.runId });
  const rows: LeaderboardRow[] = partial.map((r) => ({
    ...r,
    version: versions.find((v) => v.hash === r.versionHash)?.version ?? null,
  }));
  const groups: LeaderboardGroup[] = [];
  for (const r of rows) {
    let g = groups.find((x) => x.key === r.group);
    if (!g) {
      g = { key: r.group, label: r.policyLabel, runIds: [] };
      groups.push(g);
    }
    g.runIds.push(r.runId);
  }
  return { server, env, split, rows: rows.sort(byRank), groups, versions };
}
