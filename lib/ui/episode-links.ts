// The URLs of episode pages, shared by the episode page, the trajectory page and the new-episode
// page (no store, no zod: both pages load it on first load). "Restart on the same task" is a link
// that works anywhere (a reload, a new tab, another browser of the same playground): a split task
// by `?split=&task=`, a custom task_spec inline as `?task_spec=<JSON>` while it is short, else by
// the recorded episode that ran it, `?from=<trajectory id>` (the new-episode page reads its spec
// from the store). See docs/playground-ui.md.
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
