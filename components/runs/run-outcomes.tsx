"use client";
// How a run's episodes ended and what holds it up (docs/runs.md "Outcomes", "Learning signal",
// "Capacity"): the outcome of each kind (the policy's stops by why), the unscored episodes beside
// the scored, attempts played again, the learning signal's summary line, and per server, run and
// model endpoint the limit, in use, waiting and pauses — with why nothing plays it when nothing does.
import { SectionCard } from "@/components/ui/card";
import type { RunSummaryResponse } from "@/lib/ui/run-queries";

const OUTCOME_LABEL: Record<string, string> = {
  scored: "scored",
  policy_stopped: "stopped by the policy",
  env_error: "server error",
  model_error: "model error",
  timeout: "timed out",
  cancelled: "cancelled",
  interrupted: "interrupted",
};

const pct = (x: number | null) => (x === null ? "—" : `${(x * 100).toFixed(0)}%`);

export function RunOutcomes({ s }: { s: RunSummaryResponse }) {
  const ended = Object.entries(s.outcomes).filter(([, n]) => n > 0);
  const ls = s.learningSignal;
  return (
    <SectionCard title="Outcomes" bodyClassName="space-y-2 text-xs">
      <p data-testid="run-outcomes">
        {ended.length === 0
          ? "No episode has ended yet."
          : ended
              .map(([o, n]) =>
                o === "policy_stopped" && s.stops.length
                  ? `${n} ${OUTCOME_LABEL[o]} (${s.stops.map((x) => `${x.count} ${x.stop}`).join(", ")})`
                  : `${n} ${OUTCOME_LABEL[o] ?? o}`,
              )
              .join(" · ")}
      </p>
      <p className="text-zinc-500">
        Success rate and pass@k count the {s.completed} scored episodes; {s.unscored} unscored (infrastructure
        failures after {s.maxAttempts} attempts) are left out, never counted as 0.
        {s.attempts.retried > 0 && ` ${s.attempts.retried} attempts were played again.`}
      </p>
      {ls && ls.tasks > 0 && (
        <p data-testid="run-learning-signal">
          Learning signal (groups of {ls.group}): {ls.alwaysFailed} of {ls.tasks} tasks always failed,{" "}
          {ls.alwaysSolved} always solved — {pct(ls.noGradient)} give no gradient; mean signal{" "}
          {ls.meanSignal?.toFixed(2)}.
        </p>
      )}
    </SectionCard>
  );
}

export function RunPlacement({
  placement,
  status,
}: {
  placement: RunSummaryResponse["placement"];
  status: string;
}) {
  if (status !== "running" && status !== "queued") return null;
  return (
    <SectionCard title="Capacity" bodyClassName="space-y-2 text-xs">
      {placement.waiting && (
        <p role="status" className="text-amber-700 dark:text-amber-400">
          Waiting: {placement.waiting}
        </p>
      )}
      <table className="w-full text-left">
        <caption className="sr-only">Shared limits</caption>
        <thead className="text-zinc-500">
          <tr>
            <th className="font-medium">Limit of</th>
            <th className="text-right font-medium">Limit</th>
            <th className="text-right font-medium">In use</th>
            <th className="text-right font-medium">Waiting</th>
            <th className="text-right font-medium">Paused</th>
          </tr>
        </thead>
        <tbody className="font-mono tabular-nums">
          {placement.capacity.map((c) => (
            <tr key={c.key}>
              <td className="font-sans">
                {c.kind} {c.kind === "run" ? "" : c.name}
              </td>
              <td className="text-right">{c.limit ?? "—"}</td>
              <td className="text-right">{c.inUse}</td>
              <td className="text-right">{c.waiting}</td>
              <td className="text-right">
                {c.pausedUntil ? `${Math.max(0, Math.ceil((c.pausedUntil - Date.now()) / 1000))} s` : "—"}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </SectionCard>
  );
}
