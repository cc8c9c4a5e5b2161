// The URLs of episode pages (no store, no zod: pages load it on first load). Restart links work in
// any tab: a split task by split and index, a task_spec inline while short, else `?from=<trajectory
// id>` read from the store (docs/playground-ui.md, "Episodes and trajectories").
import type { TrajectoryTask } from "@/lib/episodes/schema";

/**
 * The longest `task_spec` carried inline in a URL, in characters once percent-encoded: far below
 * what browsers, proxies and Node's header limit (16 KB for the whole request head) accept, and
 * still a link one can paste into a message. Longer specs are linked by `from`.
 */
export const INLINE_TASK_SPEC_MAX = 2000;

/** A live episode's page (`?step=N` scrolls to a step). */
export function episodeUrl(server: string, env: string, sid: string, step?: number): string {
  const base = `/s/${encodeURIComponent(server)}/e/${encodeURIComponent(env)}/episode/${encodeURIComponent(sid)}`;
  return step ? `${base}?step=${step}` : base;
}

/**
 * The "start an episode" page on the same task as a recorded episode: its split and index, or its
 * task_spec (inline when short, else by the episode's trajectory id `from`); the bare page without
 * a task. `fromId` is the recorded episode's trajectory id.
 */
export function newEpisodeUrl(
  server: string,
  env: string,
  task?: TrajectoryTask | null,
  fromId?: string | null,
): string {
  const base = `/s/${encodeURIComponent(server)}/e/${encodeURIComponent(env)}/episode/new`;
  if (!task) return base;
  if ("split" in task) return `${base}?split=${encodeURIComponent(task.split)}&task=${task.index}`;
  const inline = encodeURIComponent(JSON.stringify(task.task_spec));
  if (inline.length <= INLINE_TASK_SPEC_MAX) return `${base}?task_spec=${inline}`;
  // Without a record to point at, the page opens on this tab's draft (sessionStorage).
  return fromId ? `${base}?from=${encodeURIComponent(fromId)}` : `${base}?spec=1`;
}
