// The URLs of the playground's pages, built in one place (isomorphic: the UI, the CLI's printed
// links and the quality report use it). Every name and id is percent-encoded here, once; every view
// reopens from its URL (docs/playground-ui.md).
import type { TrajectoryTask } from "@/lib/trajectory/schema";

const seg = encodeURIComponent;

function withQuery(path: string, params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

/** The home page: the servers and their environments. */
export function homeHref(): string {
  return "/";
}

/** The home page's list of servers. */
export function serversHref(): string {
  return "/#servers";
}

/** A server's page: its environments. */
export function serverHref(server: string): string {
  return `/s/${seg(server)}`;
}

/** A server's conformance check page. */
export function checkHref(server: string): string {
  return `${serverHref(server)}/check`;
}

/** An environment's page, on a tab, split or task where given. */
export function envHref(
  server: string,
  env: string,
  query?: { tab?: "tools" | "tasks"; split?: string; task?: number },
): string {
  return withQuery(`${serverHref(server)}/e/${seg(env)}`, {
    tab: query?.tab,
    split: query?.split,
    task: query?.task,
  });
}

/** An environment compared with another server's environment (`?with=<server>&withEnv=<env>`). */
export function compareEnvHref(server: string, env: string, other?: { server: string; env: string }): string {
  return withQuery(`${serverHref(server)}/e/${seg(env)}/compare`, {
    with: other?.server,
    withEnv: other?.env,
  });
}

/** A live episode's page (`?step=N` scrolls to a step; step 0 is the page's top). */
export function episodeHref(server: string, env: string, sid: string, step?: number): string {
  const base = `${envHref(server, env)}/episode/${seg(sid)}`;
  return step ? `${base}?step=${step}` : base;
}

/**
 * The longest `task_spec` carried inline in a URL, in characters once percent-encoded: far below
 * what browsers, proxies and Node's header limit (16 KB for the whole request head) accept, and
 * still a link one can paste into a message. Longer specs are linked by `from`.
 */
export const INLINE_TASK_SPEC_MAX = 2000;

/**
 * The "start an episode" page: on a split task (split and index), on a task_spec (inline when
 * short, else by the recorded episode's trajectory id `fromId`), or blank. Restart links work in
 * any tab this way.
 */
export function newEpisodeHref(
  server: string,
  env: string,
  task?: TrajectoryTask | null,
  fromId?: string | null,
): string {
  const base = `${envHref(server, env)}/episode/new`;
  if (!task) return base;
  if ("split" in task) return `${base}?split=${seg(task.split)}&task=${task.index}`;
  const inline = seg(JSON.stringify(task.task_spec));
  if (inline.length <= INLINE_TASK_SPEC_MAX) return `${base}?task_spec=${inline}`;
  // Without a record to point at, the page opens on this tab's draft (sessionStorage).
  return fromId ? `${base}?from=${seg(fromId)}` : `${base}?spec=1`;
}

/** The trajectories list; with a run's id, the episodes of that run. */
export function trajectoriesHref(filter: { run?: string } = {}): string {
  return filter.run ? `/trajectories?run=${seg(filter.run)}` : "/trajectories";
}

/** The episodes running now. */
export function liveHref(): string {
  return "/live";
}

/** A trajectory's page (at a step: `?step=N`). */
export function trajectoryHref(id: string, step?: number | null): string {
  return `${trajectoriesHref()}/${seg(id)}${step ? `?step=${step}` : ""}`;
}

/** Two trajectories side by side. */
export function compareTrajectoriesHref(a: string, b: string): string {
  return `${trajectoriesHref()}/compare?a=${seg(a)}&b=${seg(b)}`;
}

/** The runs list. */
export function runsHref(): string {
  return "/runs";
}

/** A run's page (on one task's episodes: `?task=N`). */
export function runHref(id: string, task?: number): string {
  return `${runsHref()}/${seg(id)}${task !== undefined ? `?task=${task}` : ""}`;
}

/** Two runs side by side. */
export function compareRunsHref(a: string, b: string): string {
  return `${runsHref()}/compare?a=${seg(a)}&b=${seg(b)}`;
}

/** The new run form, filled in with what is given. */
export function newRunHref(q: { server?: string; env?: string; split?: string } = {}): string {
  return withQuery(`${runsHref()}/new`, q);
}

/** Review: queues, label sets and share links. */
export function reviewHref(): string {
  return "/review";
}

/** A review queue as one reviewer works through it (at a queue position: `?at=N`). */
export function reviewQueueHref(id: string, reviewer?: string | null, at?: number | null): string {
  return withQuery(`${reviewHref()}/${seg(id)}`, { reviewer, at });
}

/** A queue's agreement report: the verifier against the reviewers. */
export function agreementHref(id: string): string {
  return `${reviewHref()}/${seg(id)}/agreement`;
}

/** The leaderboards: every environment and split that runs have played. */
export function leaderboardsHref(): string {
  return "/leaderboards";
}

/** The leaderboard of one environment's split. */
export function leaderboardHref(server: string, env: string, split: string): string {
  return `${leaderboardsHref()}/${seg(server)}/${seg(env)}/${seg(split)}`;
}

/** A share link's play page (someone without the access token plays the link's tasks there). */
export function playHref(token: string): string {
  return `/play/${seg(token)}`;
}
