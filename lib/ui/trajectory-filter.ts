// The trajectories list's filters as its URL keeps them (/trajectories?env=&run=&sort=...), read by
// hand: zod stays out of the list page's bundle. The server checks them again (lib/trajectory/schema.ts).
import { END_REASONS, SORT_KEYS } from "@/lib/trajectory/model";
import type { TrajectoryFilter } from "@/lib/trajectory/schema";

/** The filters in the URL; unknown keys and malformed values are left out. */
export function filterFromParams(params: URLSearchParams): TrajectoryFilter {
  const f: TrajectoryFilter = {};
  const str = (k: "server" | "env" | "task" | "q" | "run") => {
    const v = params.get(k);
    if (v) f[k] = v;
  };
  str("server");
  str("env");
  str("task");
  str("q");
  str("run");
  const end = params.get("end_reason");
  if (end === "running" || (END_REASONS as readonly string[]).includes(end ?? "")) {
    f.end_reason = end as TrajectoryFilter["end_reason"];
  }
  for (const k of ["min_reward", "max_reward"] as const) {
    const v = params.get(k);
    if (v && Number.isFinite(Number(v))) f[k] = Number(v);
  }
  const sort = params.get("sort");
  if ((SORT_KEYS as readonly string[]).includes(sort ?? "")) f.sort = sort as TrajectoryFilter["sort"];
  const order = params.get("order");
  if (order === "asc" || order === "desc") f.order = order;
  const golden = params.get("golden");
  if (golden === "1" || golden === "true") f.golden = true;
  else if (golden === "0" || golden === "false") f.golden = false;
  return f;
}
