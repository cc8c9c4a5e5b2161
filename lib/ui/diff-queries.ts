// The compare view's one resource: the surface diff of an environment against another server's,
// computed by the app (POST /api/servers/<name>/diff) — a read, though it opens sessions, so it is
// asked for once per choice and kept.
import { queryOptions, useQuery } from "@tanstack/react-query";
import type { DiffReport } from "@/lib/conformance/diff/report";
import { apiJson } from "./api-error";
import { diffKeys } from "./query-keys";

export function surfaceDiffQuery(server: string, env: string, other: string, otherEnv: string) {
  return queryOptions({
    queryKey: diffKeys.surface(server, env, other, otherEnv),
    queryFn: async ({ signal }) =>
      apiJson<DiffReport>(
        await fetch(`/api/servers/${encodeURIComponent(server)}/diff`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify({ env, with: { server: other, env: otherEnv } }),
          signal,
        }),
      ),
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
    refetchOnWindowFocus: false,
  });
}

/** The diff once both sides are chosen (`other` empty: none yet). */
export function useSurfaceDiff(server: string, env: string, other: string, otherEnv: string) {
  return useQuery({ ...surfaceDiffQuery(server, env, other, otherEnv), enabled: !!other && !!otherEnv });
}
