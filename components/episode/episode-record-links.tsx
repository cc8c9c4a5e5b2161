"use client";
// Where the episode is recorded: its trajectory (steps, replay, fork, export) and, for a run's
// episode, the run. Read from the one record the page follows, so every tab links the same.
import { History } from "lucide-react";
import Link from "next/link";
import { useShallow } from "zustand/react/shallow";
import { RunTagLink } from "@/components/runs/run-tag-link";
import { trajectoryHref } from "@/lib/routes";
import { useEpisodeStore } from "@/lib/ui/episode-store";

export function EpisodeRecordLinks() {
  const { id, run } = useEpisodeStore(
    useShallow((s) => ({ id: s.trajectory?.id ?? null, run: s.trajectory?.run ?? null })),
  );
  if (!id) return null;
  return (
    <p className="flex flex-col gap-1 text-xs text-zinc-600 dark:text-zinc-400">
      <span>
        <History aria-hidden="true" className="mr-1 inline size-3.5 align-[-2px]" />
        recorded as{" "}
        {/* Not prefetched: rendering the trajectory's page would compete with the tool form's requests. */}
        <Link
          prefetch={false}
          href={trajectoryHref(id)}
          className="font-mono font-medium text-indigo-700 underline dark:text-indigo-300"
          aria-label={`Trajectory ${id}`}
        >
          trajectory {id}
        </Link>
      </span>
      {run && <RunTagLink run={run} />}
    </p>
  );
}
