"use client";
// Episodes running now (/live): the list follows the live feed (new episodes, steps, ends) and
// each opens the live trajectory view, which updates as steps and frames arrive.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Radio } from "lucide-react";
import Link from "next/link";
import { useEffect } from "react";
import { RewardValue } from "@/components/episode/reward-value";
import { PageContainer, PageHeader } from "@/components/layout/page-header";
import { ErrorPanel } from "@/components/ui/error-panel";
import { SkeletonBlock } from "@/components/ui/skeleton";
import { trajectoryHref } from "@/lib/routes";
import { liveTrajectoriesQuery, trajectoryKeys } from "@/lib/ui/trajectory-queries";
import { fmtTime } from "./format";

export function LiveList() {
  const qc = useQueryClient();
  const q = useQuery({ ...liveTrajectoriesQuery(), refetchInterval: 10_000 });
  useEffect(() => {
    const es = new EventSource("/api/trajectories/live/events");
    let timer: ReturnType<typeof setTimeout> | null = null;
    const refresh = () => {
      if (timer) return;
      timer = setTimeout(() => {
        timer = null;
        void qc.invalidateQueries({ queryKey: trajectoryKeys.live() });
      }, 200);
    };
    for (const t of ["started", "step", "ended", "prompt"]) es.addEventListener(t, refresh);
    return () => {
      es.close();
      if (timer) clearTimeout(timer);
    };
  }, [qc]);
  return (
    <PageContainer>
      <PageHeader
        title="Live episodes"
        description="Episodes running now through the relay — from this UI, another tab, or any ORS client using /api/servers/<name> as its base URL."
      />
      {q.isPending ? (
        <SkeletonBlock lines={4} />
      ) : q.error ? (
        <ErrorPanel error={q.error} onRetry={() => void q.refetch()} />
      ) : q.data.items.length === 0 ? (
        <p className="rounded-lg border border-zinc-200 p-6 text-center text-zinc-500 dark:border-zinc-800">
          No episode is running right now.
        </p>
      ) : (
        <ul
          aria-label="Running episodes"
          className="divide-y divide-zinc-200 rounded-lg border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800"
        >
          {q.data.items.map((t) => (
            <li key={t.id} className="flex flex-wrap items-center gap-3 px-3 py-2 text-xs">
              <Radio aria-hidden="true" className="size-3.5 animate-pulse text-sky-500" />
              <Link
                className="font-medium text-indigo-700 hover:underline dark:text-indigo-300"
                href={trajectoryHref(t.id)}
              >
                {t.env ?? "unknown"} · {t.task_label}
              </Link>
              <span className="font-mono text-zinc-500">{t.server}</span>
              <span className="font-mono text-zinc-500" title="session id">
                {t.sid}
              </span>
              {t.client && (
                <span className="text-zinc-500" title="The client playing it (an MCP client)">
                  played by {t.client.name} {t.client.version}
                </span>
              )}
              <span>{t.num_steps} steps</span>
              <span className="font-mono">
                reward <RewardValue value={t.total_reward} />
              </span>
              <span className="text-zinc-500">last activity {fmtTime(t.last_activity_at)}</span>
            </li>
          ))}
        </ul>
      )}
    </PageContainer>
  );
}
