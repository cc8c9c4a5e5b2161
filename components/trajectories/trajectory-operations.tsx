"use client";
// A trajectory's operations: fork at the selected step, replay with a diff, compare with another
// trajectory; and the golden mark (a reference that `npx ors-playground test` replays).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { GitBranch, GitCompare, RotateCcw, Star } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button, buttonClasses } from "@/components/ui/button";
import { SectionCard } from "@/components/ui/card";
import { ErrorPanel } from "@/components/ui/error-panel";
import { Form } from "@/components/ui/form";
import { Input, Label } from "@/components/ui/input";
import { compareTrajectoriesHref, episodeHref, trajectoryHref } from "@/lib/routes";
import type { Trajectory } from "@/lib/trajectory/schema";
import { cn } from "@/lib/ui/cn";
import {
  type ForkResponse,
  forkability,
  forkTrajectoryRequest,
  replayTrajectoryRequest,
  setGoldenRequest,
  trajectoryKeys,
} from "@/lib/ui/trajectory-queries";

export /**
 * Marks the trajectory golden (a reference that `npx ors-playground test` replays as a regression test)
 * or unmarks it: a toggle button (aria-pressed), so its name stays the same either way.
 */
function GoldenToggle({ t, golden }: { t: Trajectory; golden: boolean }) {
  const qc = useQueryClient();
  const key = trajectoryKeys.one(t.id);
  const m = useMutation({
    mutationFn: (next: boolean) => setGoldenRequest(t.id, next),
    onMutate: async (next) => {
      await qc.cancelQueries({ queryKey: key });
      const before = qc.getQueryData<Trajectory>(key);
      if (before) qc.setQueryData<Trajectory>(key, { ...before, golden: next });
      return { before };
    },
    onError: (_err, _next, ctx) => {
      if (ctx?.before) qc.setQueryData(key, ctx.before);
    },
    onSettled: () => qc.invalidateQueries({ queryKey: trajectoryKeys.all }),
  });
  const running = t.end_reason == null;
  return (
    <>
      <Button
        size="sm"
        aria-pressed={golden}
        disabled={running || m.isPending}
        onClick={() => m.mutate(!golden)}
        title={
          running
            ? "An episode can be marked golden once it has ended"
            : golden
              ? "Golden: replayed as a regression test by npx ors-playground test. Press to unmark."
              : "Mark golden: npx ors-playground test replays golden episodes as regression tests"
        }
        className={cn(golden && "border-amber-400 bg-amber-50 dark:border-amber-700 dark:bg-amber-950")}
      >
        <Star aria-hidden="true" className={cn(golden && "fill-amber-400 text-amber-500")} />
        Golden
      </Button>
      {m.error && (
        <span role="alert" className="text-xs text-red-700 dark:text-red-400">
          Could not {m.variables ? "mark" : "unmark"} it: {m.error.message}
        </span>
      )}
    </>
  );
}

export function Operations({ t, step }: { t: Trajectory; step: number | null }) {
  const router = useRouter();
  const qc = useQueryClient();
  const [other, setOther] = useState("");
  const [forked, setForked] = useState<ForkResponse | null>(null);
  const forkM = useMutation({
    mutationFn: (n: number) => forkTrajectoryRequest(t.id, n),
    onSuccess: (r) => {
      setForked(r);
      void qc.invalidateQueries({ queryKey: trajectoryKeys.all });
    },
  });
  const replayM = useMutation({
    mutationFn: () => replayTrajectoryRequest(t.id),
    onSuccess: (r) => {
      void qc.invalidateQueries({ queryKey: trajectoryKeys.all });
      router.push(compareTrajectoriesHref(t.id, r.trajectory_id));
    },
  });
  const canRerun = t.task != null && t.steps.length > 0;
  const fork = forkability(t, step);
  return (
    <SectionCard title="Operations" bodyClassName="space-y-3 text-xs">
      <div className="flex flex-wrap gap-2">
        <Button
          size="sm"
          disabled={!fork.ok || forkM.isPending}
          aria-describedby={fork.ok || !canRerun ? undefined : "fork-unavailable"}
          onClick={() => step != null && fork.ok && forkM.mutate(step)}
        >
          <GitBranch aria-hidden="true" />
          {forkM.isPending ? "Forking…" : `Fork at step ${step ?? "—"}`}
        </Button>
        <Button size="sm" disabled={!canRerun || replayM.isPending} onClick={() => replayM.mutate()}>
          <RotateCcw aria-hidden="true" />
          {replayM.isPending ? "Replaying…" : "Replay and diff"}
        </Button>
      </div>
      {!canRerun ? (
        <p className="text-zinc-500">Fork and replay need a known task and at least one step.</p>
      ) : (
        !fork.ok && (
          <p id="fork-unavailable" className="text-amber-800 dark:text-amber-300">
            {fork.reason}
          </p>
        )
      )}
      {forkM.error && <ErrorPanel compact error={forkM.error} context={{ what: "fork" }} />}
      {replayM.error && <ErrorPanel compact error={replayM.error} context={{ what: "replay" }} />}
      {forked && (
        <div
          role="status"
          aria-label="Fork result"
          className="space-y-1 rounded-md bg-zinc-50 p-2 dark:bg-zinc-900"
        >
          <p>
            Forked at step {forked.step}: new session <span className="font-mono">{forked.sid}</span>.
          </p>
          <p>
            {forked.differing.length === 0
              ? "Every replayed step matched the original."
              : `Replayed steps that differ from the original: ${forked.differing.join(", ")}.`}
          </p>
          <div className="flex flex-wrap gap-2">
            <Link
              className={buttonClasses("primary", "xs")}
              href={episodeHref(forked.server, forked.env, forked.sid)}
            >
              Continue in the episode view
            </Link>
            <Link className={buttonClasses("secondary", "xs")} href={trajectoryHref(forked.trajectory_id)}>
              View the fork
            </Link>
          </div>
        </div>
      )}
      <Form
        className="flex items-end gap-2"
        onSubmit={() => {
          if (other.trim()) router.push(compareTrajectoriesHref(t.id, other.trim()));
        }}
      >
        <div className="flex-1 space-y-1">
          <Label htmlFor="compare-with">Compare with trajectory id</Label>
          <Input
            id="compare-with"
            value={other}
            onChange={(e) => setOther(e.target.value)}
            placeholder="id"
          />
        </div>
        <Button size="md" type="submit" disabled={!other.trim()}>
          <GitCompare aria-hidden="true" /> Compare
        </Button>
      </Form>
    </SectionCard>
  );
}
