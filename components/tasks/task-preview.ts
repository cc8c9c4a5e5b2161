// A one-line preview of a task for the task list: `key: value · key: value`, cut to a few hundred chars.
const cache = new WeakMap<object, string>();

export function taskPreview(task: Record<string, unknown>): string {
  const hit = cache.get(task);
  if (hit !== undefined) return hit;
  const parts: string[] = [];
  let len = 0;
  for (const [k, v] of Object.entries(task)) {
    const s = `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`;
    parts.push(s.length > 160 ? `${s.slice(0, 160)}…` : s);
    len += s.length;
    if (len > 300) break;
  }
  const out = parts.join(" · ").replace(/\s+/g, " ");
  cache.set(task, out);
  return out;
}

const searchCache = new WeakMap<object, string>();

/** Lower-cased JSON of a task, for the text filter. */
export function taskSearchText(task: Record<string, unknown>): string {
  let s = searchCache.get(task);
  if (s === undefined) {
    s = JSON.stringify(task).toLowerCase();
    searchCache.set(task, s);
  }
  return s;
}
