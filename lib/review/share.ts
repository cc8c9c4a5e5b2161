// Share links for human baselines (docs/review.md "Share links"): a link (`/play/<token>`) lets
// someone without the access token play the tasks of one environment's split, one after another;
// each player's episodes are a run with the policy `human`, started here through the recording
// relay (so each is a trajectory tagged with the run) and settled as the player moves on.
import "server-only";
import { randomBytes } from "node:crypto";
import type { Recorder } from "@/lib/episodes/recorder";
import { isOrsClientError, type OrsClient } from "@/lib/ors/client";
import { OrsError } from "@/lib/ors/protocol";
import { encodeRunTag, RUN_HEADER } from "@/lib/relay/annotations";
import { DEFAULT_EPISODE_TIMEOUT_MS, type HumanPolicy, type RunConfig } from "@/lib/runs/spec";
import { runConfigOf } from "@/lib/runs/summary";
import { resolveTasks, TaskSelectionError } from "@/lib/runs/tasks";
import type { PlaygroundStore, RunEpisode, RunEpisodePatch, RunRecord, ShareLink } from "@/lib/store/types";
import { MAX_SHARE_TASKS, type ShareRequest } from "./spec";

export interface ShareDeps {
  store: PlaygroundStore;
  recorder: Pick<Recorder, "idle">;
  /** A client of a known server through the recording relay (`headers` on every request). */
  clientFor(server: string, o?: { headers?: Record<string, string> }): OrsClient;
  now?: () => number;
}

/** A share token: 24 random bytes, base64url (what `/play/<token>` and the request policy expect). */
export function newShareToken(): string {
  return randomBytes(24).toString("base64url");
}

const failure = (err: unknown) => (isOrsClientError(err) ? err.detail : (err as Error).message);

/** `POST /api/shares`: a link to the split's tasks (checked against the server), stored. */
export async function createShare(d: ShareDeps, r: ShareRequest): Promise<ShareLink> {
  const now = (d.now ?? Date.now)();
  if (r.expiresAt != null && r.expiresAt <= now) throw new OrsError(400, "expiresAt: the date has passed");
  let size: number;
  try {
    size = (await d.clientFor(r.server).numTasks(r.env, r.split)).num_tasks;
  } catch (err) {
    const status = isOrsClientError(err) && err.kind === "http" && err.status < 500 ? 400 : 502;
    throw new OrsError(
      status,
      `server "${r.server}" cannot count the tasks of ${r.env}/${r.split}: ${failure(err)}`,
    );
  }
  let tasks: number[];
  try {
    tasks = resolveTasks(r.tasks, size);
  } catch (err) {
    if (err instanceof TaskSelectionError) throw new OrsError(400, `tasks: ${err.message}`);
    throw err;
  }
  if (tasks.length > MAX_SHARE_TASKS)
    throw new OrsError(400, `tasks: ${tasks.length} tasks; a share link plays at most ${MAX_SHARE_TASKS}`);
  return d.store.createShare({
    token: newShareToken(),
    server: r.server,
    env: r.env,
    split: r.split,
    tasks,
    expiresAt: r.expiresAt ?? null,
    note: r.note ?? null,
    createdAt: now,
  });
}

/** The link of a token if it opens anything now: 404 unknown, 410 revoked or expired. */
export async function openShare(store: PlaygroundStore, token: string, now = Date.now()): Promise<ShareLink> {
  const share = await store.getShare(token);
  if (!share) throw new OrsError(404, "this share link does not exist");
  if (share.revokedAt !== null) throw new OrsError(410, "this share link was revoked");
  if (share.expiresAt !== null && share.expiresAt <= now)
    throw new OrsError(410, "this share link has expired");
  return share;
}

/** What a player sees of a link: never its server's address, its note or its other players. */
export function publicShare(s: ShareLink) {
  return { env: s.env, split: s.split, tasks: s.tasks.length, expiresAt: s.expiresAt };
}

/** The episode a player is on. */
export interface PlayEpisode {
  server: string;
  env: string;
  sid: string;
  trajectoryId: string;
  taskIndex: number;
  /** Its place in the link's tasks (0-based), and how many there are. */
  position: number;
  total: number;
}

/** A player's progress: each task's state and reward, the episode they are on. */
export interface PlayerProgress {
  player: string;
  runId: string;
  total: number;
  played: number;
  tasks: {
    taskIndex: number;
    status: RunEpisode["status"];
    reward: number | null;
    finished: boolean | null;
  }[];
  current: PlayEpisode | null;
}

/** The run of a player, created (policy `human`, playing) the first time they come. */
export async function joinShare(d: ShareDeps, share: ShareLink, player: string): Promise<RunRecord> {
  const { store } = d;
  const known = await store.sharePlayer(share.token, player);
  const existing = known && (await store.getRun(known.runId));
  if (existing) return existing;
  const now = (d.now ?? Date.now)();
  const policy: HumanPolicy = { kind: "human", player, share: share.token };
  const config: RunConfig = {
    tasks: share.tasks,
    concurrency: 1,
    successAt: 1,
    timeoutMs: DEFAULT_EPISODE_TIMEOUT_MS,
    policy,
    policyLabel: `human ${player}`,
  };
  // No process plays it (instance null): the player does, through whichever replica answers.
  const run = await store.createRun({
    server: share.server,
    env: share.env,
    split: share.split,
    tasks: share.tasks,
    repeats: 1,
    config: config as unknown as RunRecord["config"],
    createdAt: now,
    instance: null,
  });
  await store.setRunStatus(run.id, "running", now);
  if (!(await store.addSharePlayer({ token: share.token, player, runId: run.id, createdAt: now }))) {
    // Another request of the same player came first: theirs is the run.
    await store.deleteRun(run.id);
    return joinShare(d, share, player);
  }
  return (await store.getRun(run.id))!;
}

/** Whether a run is a player's of this link. */
export function isShareRun(run: RunRecord, token: string): boolean {
  const p = runConfigOf(run).policy;
  return p.kind === "human" && p.share === token;
}

async function currentOf(d: ShareDeps, share: ShareLink, run: RunRecord, episodes: RunEpisode[]) {
  const e = episodes.find((x) => x.status === "running" && x.trajectoryId);
  if (!e) return null;
  const t = await d.store.summary(e.trajectoryId!);
  if (!t?.sid) return null;
  return {
    server: run.server,
    env: run.env,
    sid: t.sid,
    trajectoryId: t.id,
    taskIndex: e.taskIndex,
    position: share.tasks.indexOf(e.taskIndex),
    total: share.tasks.length,
  } satisfies PlayEpisode;
}

export async function progressOf(d: ShareDeps, share: ShareLink, run: RunRecord): Promise<PlayerProgress> {
  const episodes = await d.store.runEpisodes(run.id);
  const byTask = new Map(episodes.map((e) => [e.taskIndex, e]));
  const tasks = share.tasks.map((taskIndex) => {
    const e = byTask.get(taskIndex);
    return {
      taskIndex,
      status: e?.status ?? "pending",
      reward: e?.reward ?? null,
      finished: e?.finished ?? null,
    };
  });
  const policy = runConfigOf(run).policy as HumanPolicy;
  return {
    player: policy.player,
    runId: run.id,
    total: share.tasks.length,
    played: tasks.filter((t) => t.status === "done" || t.status === "errored").length,
    tasks,
    current: await currentOf(d, share, run, episodes),
  };
}

/**
 * A player's episode that is still running, ended and written to the run: its session closed (the
 * recorded episode then ends as closed, unless it finished already), its reward as recorded.
 */
async function settle(d: ShareDeps, run: RunRecord, e: RunEpisode): Promise<void> {
  const now = d.now ?? Date.now;
  let t = e.trajectoryId ? await d.store.summary(e.trajectoryId) : null;
  if (t && t.end_reason === null && t.sid) {
    await d
      .clientFor(run.server)
      .delete(t.sid)
      .catch(() => {});
    await d.recorder.idle();
    t = await d.store.summary(t.id);
  }
  const ended = t?.end_reason ?? null;
  const played = ended === "finished" || ended === "user_closed";
  const patch: RunEpisodePatch = played
    ? {
        status: "done",
        reward: t!.total_reward,
        finished: ended === "finished",
        steps: t!.num_steps,
        turns: t!.num_steps,
        stop: ended === "finished" ? "finished" : "player_moved_on",
        error: null,
      }
    : {
        status: "errored",
        error:
          t?.error ?? (t ? `the episode ended: ${ended ?? "unknown"}` : "the episode was never recorded"),
      };
  const endedAt = t?.ended_at ?? now();
  await d.store.updateEpisode(run.id, e, {
    ...patch,
    endedAt,
    durationMs: e.startedAt === null ? null : endedAt - e.startedAt,
  });
}

/** Starts the episode of one task through the relay, tagged with the run. */
async function start(
  d: ShareDeps,
  share: ShareLink,
  run: RunRecord,
  taskIndex: number,
): Promise<PlayEpisode> {
  const now = d.now ?? Date.now;
  const key = { taskIndex, repeat: 0 };
  await d.store.updateEpisode(run.id, key, {
    status: "running",
    startedAt: now(),
    endedAt: null,
    error: null,
  });
  const ors = d.clientFor(run.server, {
    headers: { [RUN_HEADER]: encodeRunTag({ id: run.id, task_index: taskIndex, repeat: 0 }) },
  });
  let sid: string | null = null;
  try {
    sid = (await ors.createSession()).sid;
    await ors.create(sid, { env_name: run.env, split: run.split, index: taskIndex });
    // The prompt is asked for once, here; the player's page reads the recorded one.
    await ors.prompt(run.env, sid);
    await d.recorder.idle();
    const t = await d.store.findRunning(run.server, sid);
    if (!t) throw new Error("the episode was not recorded");
    await d.store.updateEpisode(run.id, key, { trajectoryId: t.id });
    return {
      server: run.server,
      env: run.env,
      sid,
      trajectoryId: t.id,
      taskIndex,
      position: share.tasks.indexOf(taskIndex),
      total: share.tasks.length,
    };
  } catch (err) {
    if (sid) await ors.delete(sid).catch(() => {});
    await d.recorder.idle();
    const t = sid ? await d.store.findBySession(run.server, sid) : null;
    await d.store.updateEpisode(run.id, key, {
      status: "errored",
      error: failure(err),
      endedAt: now(),
      trajectoryId: t?.id ?? null,
    });
    throw new OrsError(502, `task ${taskIndex} could not be started: ${failure(err)}`);
  }
}

/** One player's moves at a time (a double click must not start a task twice). */
const moving = new Map<string, Promise<unknown>>();

function oneAtATime<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const before = moving.get(key) ?? Promise.resolve();
  const next = before.catch(() => {}).then(fn);
  moving.set(key, next);
  void next
    .finally(() => {
      if (moving.get(key) === next) moving.delete(key);
    })
    .catch(() => {});
  return next;
}

/**
 * `POST /api/play/<token>/next`: the episode the player is on is settled, and the next task not
 * played yet starts (null when there is none: the run is done).
 */
export function nextEpisode(d: ShareDeps, share: ShareLink, run: RunRecord): Promise<PlayerProgress> {
  return oneAtATime(run.id, async () => {
    for (const e of await d.store.runEpisodes(run.id)) if (e.status === "running") await settle(d, run, e);
    const episodes = await d.store.runEpisodes(run.id);
    const left = share.tasks.filter((i) =>
      episodes.some((e) => e.taskIndex === i && (e.status === "pending" || e.status === "interrupted")),
    );
    if (left.length) await start(d, share, run, left[0]!);
    else await d.store.setRunStatus(run.id, "done", (d.now ?? Date.now)(), { from: ["running"] });
    return progressOf(d, share, (await d.store.getRun(run.id))!);
  });
}

/** `DELETE /api/shares/<token>`: revoked; its players' runs stop (their running episodes settled). */
export async function revokeShare(d: ShareDeps, token: string): Promise<{ revoked: string }> {
  const now = (d.now ?? Date.now)();
  if (!(await d.store.revokeShare(token, now))) {
    if (!(await d.store.getShare(token))) throw new OrsError(404, "no such share link");
    throw new OrsError(409, "this share link was revoked already");
  }
  for (const p of await d.store.sharePlayers(token)) {
    const run = await d.store.getRun(p.runId);
    if (run?.status !== "running") continue;
    for (const e of await d.store.runEpisodes(run.id)) if (e.status === "running") await settle(d, run, e);
    const left = (await d.store.runEpisodes(run.id)).some((e) => e.status === "pending");
    await d.store.setRunStatus(run.id, left ? "cancelled" : "done", now, { from: ["running"] });
  }
  return { revoked: token };
}
