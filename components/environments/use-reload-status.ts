"use client";
// The built-in host's reload status (GET /api/environments/status), polled while a page of one of
// its environments is open: a save that did not load shows within seconds, and goes away when a
// fix loads. Only the playground's own host (`local`) reloads; other servers never ask.
import { queryOptions, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import type { ReloadStatus } from "@/lib/environments/reload-status";
import { apiJson } from "@/lib/ui/api-error";
import { afterPageLoad } from "@/lib/ui/ors-loader";
import { environmentKeys, orsKeys } from "@/lib/ui/query-keys";

/** The server whose environments reload: the built-in host. */
export const RELOADING_SERVER = "local";
const POLL_MS = 2000;

export function reloadStatusQuery() {
  return queryOptions({
    queryKey: environmentKeys.status,
    queryFn: async ({ signal }): Promise<ReloadStatus> => {
      // The schema brings zod (~30 kB gzipped): loaded after the page's `load`, so it is not in
      // the first-load JS of every page that shows the banner (environment and episode pages).
      await afterPageLoad();
      const { reloadStatusSchema } = await import("@/lib/environments/reload-status");
      return reloadStatusSchema.parse(
        await apiJson(await fetch("/api/environments/status", { signal, cache: "no-store" })),
      );
    },
    refetchInterval: POLL_MS,
    staleTime: POLL_MS / 2,
  });
}

/**
 * The reload status while `server` is the built-in host (undefined otherwise). With
 * `refreshEnvironment`, a reload that loaded refreshes that environment's tools, splits and tasks.
 */
export function useReloadStatus(server: string, refreshEnvironment?: string): ReloadStatus | undefined {
  const enabled = server === RELOADING_SERVER;
  const { data } = useQuery({ ...reloadStatusQuery(), enabled });
  const client = useQueryClient();
  const seen = useRef<number | null | undefined>(undefined);
  const at = data?.last_reload?.at ?? null;
  useEffect(() => {
    if (!enabled || data === undefined) return;
    const before = seen.current;
    seen.current = at;
    if (before === at || at === null || !refreshEnvironment) return;
    // The first status this page sees: a reload it names matters only if the environment's data
    // were fetched before it (on the server, as the page was rendered, with the old code).
    const fetchedAt = client.getQueryState(orsKeys.tools(server, refreshEnvironment))?.dataUpdatedAt ?? 0;
    if (before === undefined && (fetchedAt === 0 || fetchedAt >= at)) return;
    void client.invalidateQueries({ queryKey: orsKeys.envs(server) });
    void client.invalidateQueries({ queryKey: orsKeys.env(server, refreshEnvironment) });
  }, [enabled, data, at, client, server, refreshEnvironment]);
  return enabled ? data : undefined;
}
