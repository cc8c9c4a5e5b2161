"use client";
// The leaderboards (/leaderboards): every environment and split that runs have played, each
// linking to its leaderboard, with how many runs it has.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { PageContainer, PageHeader } from "@/components/layout/page-header";
import { SkeletonBlock } from "@/components/ui/skeleton";
import { leaderboardHref } from "@/lib/routes";
import { runsQuery } from "@/lib/ui/run-queries";

export function LeaderboardsIndex() {
  const runs = useQuery(runsQuery({ limit: 1000 }));
  const boards = new Map<string, { server: string; env: string; split: string; runs: number }>();
  for (const r of runs.data?.items ?? []) {
    const key = JSON.stringify([r.server, r.env, r.split]);
    const b = boards.get(key) ?? { server: r.server, env: r.env, split: r.split, runs: 0 };
    b.runs++;
    boards.set(key, b);
  }
  const list = [...boards.values()].sort((a, b) =>
    `${a.env}/${a.split}`.localeCompare(`${b.env}/${b.split}`),
  );
  return (
    <PageContainer>
      <PageHeader
        title="Leaderboards"
        description="Per environment and split: every run that played it — models, random, script oracles, people through share links."
      />
      {!runs.data ? (
        <SkeletonBlock label="Loading the runs" lines={3} />
      ) : list.length === 0 ? (
        <p className="text-sm text-zinc-500">
          No run yet: a leaderboard appears once a run has played a split.
        </p>
      ) : (
        <ul className="flex flex-col gap-1 text-sm">
          {list.map((b) => (
            <li key={`${b.server}/${b.env}/${b.split}`}>
              <Link
                href={leaderboardHref(b.server, b.env, b.split)}
                className="font-medium text-indigo-700 hover:underline dark:text-indigo-300"
              >
                {b.env} / {b.split}
              </Link>{" "}
              <span className="text-zinc-500">
                on {b.server} · {b.runs} run{b.runs === 1 ? "" : "s"}
              </span>
            </li>
          ))}
        </ul>
      )}
    </PageContainer>
  );
}
