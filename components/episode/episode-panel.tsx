"use client";
// The episode at a glance: status, step count, each step's reward and the cumulative reward, the
// idle time left before the server expires the session, and the end with what to do next.
import Link from "next/link";
import { useShallow } from "zustand/react/shallow";
import { Badge } from "@/components/ui/badge";
import { Button, buttonClasses } from "@/components/ui/button";
import { Card, CardBody, CardHeader, CardTitle } from "@/components/ui/card";
import { cn } from "@/lib/ui/cn";
import {
  type EpisodeEnd,
  SESSION_IDLE_MS,
  selectCumulativeReward,
  selectEnd,
  selectIsBusy,
  selectLastRequestAt,
  selectTask,
  stepReward,
  useEpisodeStore,
  useEpisodeStoreApi,
} from "@/lib/ui/episode-store";
import { endHeadline, newEpisodeUrl, stashTaskSpec, useEndEpisode } from "@/lib/ui/use-episode";
import { formatReward } from "./step-card";
import { goToStep } from "./step-list";
import { useNow } from "./stream-log";

function formatClock(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** Time left before the server expires the idle session (15 min since the last request). */
export function IdleCountdown() {
  const last = useEpisodeStore(selectLastRequestAt);
  const ended = useEpisodeStore((s) => s.end !== null);
  const now = useNow(!ended && last !== null, 1000);
  if (ended || last === null) return null;
  const left = Math.min(SESSION_IDLE_MS, SESSION_IDLE_MS - (now - last));
  return (
    <div className="flex items-baseline justify-between gap-2 text-xs">
      <span className="text-zinc-500 dark:text-zinc-400">Expires if idle in</span>
      <span
        className={cn(
          "font-mono tabular-nums",
          left < 60_000 ? "font-semibold text-red-700 dark:text-red-400" : "text-zinc-800 dark:text-zinc-200",
        )}
        title="The server tears the session down after 15 minutes without a request; this page pings it every 10 s while visible."
      >
        {formatClock(left)}
      </span>
    </div>
  );
}

const END_TONE: Record<EpisodeEnd["reason"], string> = {
  finished:
    "border-emerald-300 bg-emerald-50 text-emerald-900 dark:border-emerald-900 dark:bg-emerald-950 dark:text-emerald-100",
  user: "border-zinc-300 bg-zinc-50 text-zinc-800 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100",
  expired:
    "border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100",
  lost: "border-red-300 bg-red-50 text-red-900 dark:border-red-900 dark:bg-red-950 dark:text-red-100",
  error: "border-red-300 bg-red-50 text-red-900 dark:border-red-900 dark:bg-red-950 dark:text-red-100",
};

function endExplanation(end: EpisodeEnd): string {
  switch (end.reason) {
    case "finished":
      return end.detail ?? "The last tool call returned finished: true.";
    case "user":
      return "You ended the episode: the session was deleted on the server.";
    case "expired":
      return end.detail ?? "The session was idle for 15 minutes and the server expired it.";
    default:
      return end.detail ?? "The server no longer has this session.";
  }
}

/** How the episode ended, with "Restart on the same task". */
export function EndBanner() {
  const end = useEpisodeStore(selectEnd);
  const task = useEpisodeStore(selectTask);
  const { server, env } = useEpisodeStoreApi().getState();
  if (!end) return null;
  return (
    <div role="status" className={cn("rounded-lg border px-3 py-3", END_TONE[end.reason])}>
      <p className="text-sm font-semibold">{endHeadline(end)}</p>
      <p className="mt-0.5 text-sm opacity-90">{endExplanation(end)}</p>
      <div className="mt-2 flex flex-wrap gap-2">
        <Link
          href={newEpisodeUrl(server, env, task)}
          onClick={() => stashTaskSpec(server, env, task)}
          className={buttonClasses("primary", "sm")}
        >
          Restart on the same task
        </Link>
        <Link
          href={`/s/${encodeURIComponent(server)}/e/${encodeURIComponent(env)}`}
          className={buttonClasses("secondary", "sm")}
        >
          Back to {env}
        </Link>
      </div>
    </div>
  );
}

export function EpisodePanel() {
  const { steps, cumulative } = useEpisodeStore(
    useShallow((s) => ({ steps: s.steps, cumulative: selectCumulativeReward(s) })),
  );
  const end = useEpisodeStore(selectEnd);
  const closed = useEpisodeStore((s) => s.closed);
  const busy = useEpisodeStore(selectIsBusy);
  const endEpisode = useEndEpisode();
  const rewarded = steps.filter((s) => s.result?.ok);
  let running = 0;
  return (
    <Card>
      <CardHeader>
        <CardTitle>Episode</CardTitle>
        {end ? (
          <Badge tone={end.reason === "finished" ? "green" : end.reason === "user" ? "neutral" : "red"}>
            {endHeadline(end).toLowerCase()}
          </Badge>
        ) : busy ? (
          <Badge tone="indigo">calling…</Badge>
        ) : (
          <Badge tone="green">live</Badge>
        )}
      </CardHeader>
      <CardBody className="flex flex-col gap-3">
        <dl className="grid grid-cols-2 gap-2">
          <div className="rounded-md bg-zinc-50 px-2 py-1.5 dark:bg-zinc-900">
            <dt className="text-[11px] uppercase tracking-wide text-zinc-500 dark:text-zinc-400">Steps</dt>
            <dd className="font-mono text-lg font-semibold tabular-nums">{steps.length}</dd>
          </div>
          <div className="rounded-md bg-zinc-50 px-2 py-1.5 dark:bg-zinc-900">
            <dt className="text-[11px] uppercase tracking-wide text-zinc-500 dark:text-zinc-400">
              Cumulative reward
            </dt>
            <dd className="font-mono text-lg font-semibold tabular-nums">
              {formatReward(cumulative).replace(/^\+/, "")}
            </dd>
          </div>
        </dl>
        {rewarded.length > 0 && (
          <table className="w-full text-xs">
            <caption className="sr-only">Reward per step</caption>
            <thead>
              <tr className="text-left text-zinc-500 dark:text-zinc-400">
                <th className="font-medium">Step</th>
                <th className="font-medium">Tool</th>
                <th className="text-right font-medium">Reward</th>
                <th className="text-right font-medium">Σ</th>
              </tr>
            </thead>
            <tbody className="font-mono tabular-nums">
              {steps.map((s, i) => {
                running += stepReward(s) ?? 0;
                return (
                  <tr key={s.id} className="border-t border-zinc-100 dark:border-zinc-800">
                    <td>
                      <a
                        href={`?step=${i + 1}`}
                        onClick={(e) => {
                          e.preventDefault();
                          goToStep(i + 1);
                        }}
                        className="hover:underline"
                        aria-label={`Go to step ${i + 1}`}
                      >
                        {i + 1}
                      </a>
                    </td>
                    <td className="truncate">{s.tool}</td>
                    <td className="text-right">{formatReward(stepReward(s))}</td>
                    <td className="text-right">{formatReward(running).replace(/^\+/, "")}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
        <IdleCountdown />
        <EndBanner />
        {!closed && (!end || end.reason === "finished") && (
          <Button
            variant="danger"
            size="sm"
            disabled={endEpisode.isPending}
            onClick={() => endEpisode.mutate()}
            title="Sends /delete: the server tears the session down"
          >
            {endEpisode.isPending ? "Ending…" : end ? "Close session" : "End episode"}
          </Button>
        )}
        {endEpisode.error && !end && (
          <p role="alert" className="text-xs text-red-700 dark:text-red-400">
            Could not end the episode: {endEpisode.error.message}
          </p>
        )}
      </CardBody>
    </Card>
  );
}
