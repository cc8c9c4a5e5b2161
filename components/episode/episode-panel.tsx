"use client";
// The episode at a glance, from its record: status, step count, each step's reward and the
// cumulative reward, the idle time left before the server expires the session (when its limit is
// known; else the time since the last activity), keep-alive, and how it ended with what to do next.
import Link from "next/link";
import { useShallow } from "zustand/react/shallow";
import { Badge } from "@/components/ui/badge";
import { Button, buttonClasses } from "@/components/ui/button";
import { Card, CardBody, CardHeader, CardTitle } from "@/components/ui/card";
import { isEnvironmentReloaded } from "@/lib/environments/reload-notice";
import { envHref, newEpisodeHref } from "@/lib/routes";
import type { EndReason } from "@/lib/trajectory/schema";
import { stepReward } from "@/lib/trajectory/step";
import { cn } from "@/lib/ui/cn";
import {
  cumulativeOf,
  selectBusy,
  selectEndReason,
  selectLastActivity,
  selectSteps,
  selectTask,
  selectTotalReward,
  useEpisodeStore,
  useEpisodeStoreApi,
} from "@/lib/ui/episode-store";
import { endHeadline, errorMessage, type KeepAliveState, useEndEpisode } from "@/lib/ui/use-episode";
import { EpisodeRecordLinks } from "./episode-record-links";
import { RewardValue } from "./reward-value";
import { goToStep } from "./step-list";
import { useNow } from "./stream-log";

function formatClock(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/**
 * The server's idle limit counting down from the session's last request (any tab's, any
 * client's), or, when the limit is unknown, the time since that request.
 */
export function IdleCountdown({ keepAlive }: { keepAlive: KeepAliveState }) {
  const last = useEpisodeStore(selectLastActivity);
  const limit = useEpisodeStore((s) => s.idleLimitMs);
  const ended = useEpisodeStore((s) => selectEndReason(s) !== null);
  const now = useNow(!ended && last !== null, 1000);
  if (ended || last === null) return null;
  const idle = Math.max(0, now - last);
  return (
    <div className="flex flex-col gap-1 text-xs">
      {limit !== null ? (
        <div className="flex items-baseline justify-between gap-2">
          <span className="text-zinc-500 dark:text-zinc-400">Expires if idle in</span>
          <span
            className={cn(
              "font-mono tabular-nums",
              limit - idle < 60_000
                ? "font-semibold text-red-700 dark:text-red-400"
                : "text-zinc-800 dark:text-zinc-200",
            )}
            title={`The server tears the session down after ${formatClock(limit)} without a request.`}
          >
            {formatClock(limit - idle)}
          </span>
        </div>
      ) : (
        <div className="flex items-baseline justify-between gap-2">
          <span className="text-zinc-500 dark:text-zinc-400">Idle for (server's limit unknown)</span>
          <span className="font-mono tabular-nums text-zinc-800 dark:text-zinc-200">{formatClock(idle)}</span>
        </div>
      )}
      {keepAlive.paused && (
        <div role="status" className="flex flex-wrap items-center gap-2 text-amber-800 dark:text-amber-300">
          <span>Keep-alive paused: nobody used this tab for a while.</span>
          <Button size="xs" onClick={keepAlive.resume}>
            Keep it alive
          </Button>
        </div>
      )}
    </div>
  );
}

const END_TONE: Record<EndReason, string> = {
  finished:
    "border-emerald-300 bg-emerald-50 text-emerald-900 dark:border-emerald-900 dark:bg-emerald-950 dark:text-emerald-100",
  user_closed:
    "border-zinc-300 bg-zinc-50 text-zinc-800 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100",
  timeout:
    "border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100",
  error: "border-red-300 bg-red-50 text-red-900 dark:border-red-900 dark:bg-red-950 dark:text-red-100",
  cancelled:
    "border-zinc-300 bg-zinc-50 text-zinc-800 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100",
  interrupted:
    "border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100",
  policy_stopped:
    "border-zinc-300 bg-zinc-50 text-zinc-800 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100",
};

function endExplanation(reason: EndReason, error: string | null): string {
  switch (reason) {
    case "finished":
      return "A tool returned finished: true. The episode is over: no more calls.";
    case "user_closed":
      return error ?? "The episode was ended: the session was deleted on the server.";
    case "timeout":
      return error ?? "The session was idle past the server's limit and the server expired it.";
    case "cancelled":
      return error ?? "The run playing this episode was cancelled: its session was deleted.";
    case "interrupted":
      return error ?? "The playground stopped while this episode was running.";
    case "policy_stopped":
      return error ?? "The run's policy stopped playing (its turn limit, or an answer without a tool call).";
    default:
      return error ?? "The server no longer has this session.";
  }
}

/** How the episode ended, with "Restart on this task". */
export function EndBanner() {
  const reason = useEpisodeStore(selectEndReason);
  const error = useEpisodeStore((s) => s.trajectory?.error ?? null);
  const task = useEpisodeStore(selectTask);
  const id = useEpisodeStore((s) => s.trajectory?.id ?? null);
  const { server, env } = useEpisodeStoreApi().getState();
  if (!reason) return null;
  // Hot reload (lib/environments): the environment's code changed under a running episode.
  const reloaded = reason === "error" && isEnvironmentReloaded(error);
  return (
    <div role="status" className={cn("rounded-lg border px-3 py-3", END_TONE[reloaded ? "timeout" : reason])}>
      <p className="text-sm font-semibold">{reloaded ? "Environment reloaded" : endHeadline(reason)}</p>
      <p className="mt-0.5 text-sm opacity-90">{endExplanation(reason, error)}</p>
      <div className="mt-2 flex flex-wrap gap-2">
        {task && (
          <Link href={newEpisodeHref(server, env, task, id)} className={buttonClasses("primary", "sm")}>
            Restart on this task
          </Link>
        )}
        <Link href={envHref(server, env)} className={buttonClasses("secondary", "sm")}>
          Back to {env}
        </Link>
      </div>
    </div>
  );
}

export function EpisodePanel({ keepAlive }: { keepAlive: KeepAliveState }) {
  const steps = useEpisodeStore(selectSteps);
  const total = useEpisodeStore(selectTotalReward);
  const reason = useEpisodeStore(selectEndReason);
  const busy = useEpisodeStore(selectBusy);
  const feed = useEpisodeStore((s) => s.feed);
  const reprompts = useEpisodeStore(useShallow((s) => s.trajectory?.reprompts ?? []));
  const endEpisode = useEndEpisode();
  const rewarded = steps.some((s) => s.ok);
  const cumulative = cumulativeOf(steps);
  const closed = reason !== null && reason !== "finished";
  return (
    <Card>
      <CardHeader>
        <CardTitle>Episode</CardTitle>
        {reason ? (
          <Badge tone={reason === "finished" ? "green" : reason === "user_closed" ? "neutral" : "red"}>
            {endHeadline(reason).toLowerCase()}
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
              <RewardValue value={total} />
            </dd>
          </div>
        </dl>
        <EpisodeRecordLinks />
        {rewarded && (
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
              {steps.map((s, i) => (
                <tr key={s.index} className="border-t border-zinc-100 dark:border-zinc-800">
                  <td>
                    <a
                      href={`?step=${s.index}`}
                      onClick={(e) => {
                        e.preventDefault();
                        goToStep(s.index);
                      }}
                      className="hover:underline"
                      aria-label={`Go to step ${s.index}`}
                    >
                      {s.index}
                    </a>
                  </td>
                  <td className="truncate">
                    {s.tool}
                    {s.after_end && (
                      <span className="ml-1 font-sans text-amber-700 dark:text-amber-400">(after end)</span>
                    )}
                  </td>
                  <td className="text-right">
                    <RewardValue value={stepReward(s)} signed />
                  </td>
                  <td className="text-right">
                    <RewardValue value={cumulative[i] ?? 0} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {reprompts.length > 0 && (
          <p className="text-xs text-amber-800 dark:text-amber-300">
            The prompt was requested again {reprompts.length === 1 ? "once" : `${reprompts.length} times`} by
            another client
            {reprompts.some((r) => !r.same)
              ? ", and the environment answered differently (it may have reset)"
              : ""}
            .
          </p>
        )}
        {feed === "connecting" && !reason && (
          <p className="text-xs text-zinc-500 dark:text-zinc-400" role="status">
            Reconnecting to the live record…
          </p>
        )}
        <IdleCountdown keepAlive={keepAlive} />
        <EndBanner />
        {!closed && !endEpisode.isSuccess && (
          <Button
            variant="danger"
            size="sm"
            disabled={endEpisode.isPending}
            onClick={() => endEpisode.mutate()}
            title="Sends /delete: the server tears the session down"
          >
            {endEpisode.isPending ? "Ending…" : reason ? "Close session" : "End episode"}
          </Button>
        )}
        {endEpisode.error && (
          <p role="alert" className="text-xs text-red-700 dark:text-red-400">
            Could not end the episode: {errorMessage(endEpisode.error)}
          </p>
        )}
      </CardBody>
    </Card>
  );
}
