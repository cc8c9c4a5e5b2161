// URLs of the browsing pages (every view reopens from its URL; see the BRIEF's "UI URLs").

export function serverHref(server: string): string {
  return `/s/${encodeURIComponent(server)}`;
}

export function envHref(
  server: string,
  env: string,
  query?: { tab?: "tools" | "tasks"; split?: string; task?: number },
): string {
  const base = `${serverHref(server)}/e/${encodeURIComponent(env)}`;
  if (!query) return base;
  const p = new URLSearchParams();
  if (query.tab) p.set("tab", query.tab);
  if (query.split) p.set("split", query.split);
  if (query.task !== undefined) p.set("task", String(query.task));
  const s = p.toString();
  return s ? `${base}?${s}` : base;
}

/** The episode helper's "new episode" page: on a task (split + index), or blank for a custom task_spec. */
export function newEpisodeHref(server: string, env: string, task?: { split: string; index: number }): string {
  const base = `${envHref(server, env)}/episode/new`;
  return task ? `${base}?split=${encodeURIComponent(task.split)}&task=${task.index}` : base;
}
