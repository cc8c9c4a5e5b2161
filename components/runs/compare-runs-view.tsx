"use client";
// Two runs task by task (/runs/compare?a=&b=): the mean difference B − A with its paired 95%
// interval, the tasks that flipped (gained: failed in A, succeeded in B; lost: the reverse), and
// every task's delta in a virtualized table. The runs are picked here or from the runs list.
import { ArrowLeftRight } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useMemo, useState } from "react";
import { PageContainer, PageHeader } from "@/components/layout/page-header";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader, CardTitle, SectionCard } from "@/components/ui/card";
import { ErrorPanel } from "@/components/ui/error-panel";
import { Form } from "@/components/ui/form";
import { inputClasses, Label } from "@/components/ui/input";
import { SkeletonBlock } from "@/components/ui/skeleton";
import { compareRunsHref, runHref, runsHref } from "@/lib/routes";
import type { CompareSide } from "@/lib/runs/stats";
import { formatReward } from "@/lib/trajectory/reward";
import { cn } from "@/lib/ui/cn";
import { formatDelta, formatInterval, formatPercent } from "@/lib/ui/run-format";
import { type RunComparison, useRunComparison, useRuns } from "@/lib/ui/run-queries";
import { ShowSelect } from "./form-fields";
import { RunStatusBadge } from "./run-status-badge";
import { useVirtualRows, VirtualTable } from "./virtual-table";

const ROW = 30;
type Show = "all" | "changed" | "gained" | "lost";
const SHOWN: Record<Show, string> = { all: "all tasks", changed: "changed", gained: "gained", lost: "lost" };

export function CompareRunsView({ a, b }: { a: string; b: string }) {
  const c = useRunComparison(a, b);
  return (
    <PageContainer>
      <PageHeader
        crumbs={[{ href: runsHref(), label: "Runs" }, { label: "Compare" }]}
        title="Compare two runs"
        description="Task by task, paired: B's mean reward minus A's on each task both completed."
      />
      <Pickers a={a} b={b} />
      {!a || !b ? (
        <p className="mt-4 text-sm text-zinc-500">Choose run A (the baseline) and run B above.</p>
      ) : c.isPending ? (
        <SkeletonBlock label="Comparing" lines={6} />
      ) : c.isError ? (
        <ErrorPanel error={c.error} context={{ what: "Run" }} onRetry={() => void c.refetch()} />
      ) : (
        <Comparison c={c.data} />
      )}
    </PageContainer>
  );
}

function Pickers({ a, b }: { a: string; b: string }) {
  const router = useRouter();
  const runs = useRuns({ limit: 200 });
  const [ca, setA] = useState(a);
  const [cb, setB] = useState(b);
  const items = runs.data?.items ?? [];
  const option = (id: string) => !items.some((r) => r.id === id) && id && <option value={id}>{id}</option>;
  const select = (label: string, id: string, value: string, set: (v: string) => void) => (
    <div className="min-w-0 flex-1 space-y-1">
      <Label htmlFor={id}>{label}</Label>
      <select id={id} className={inputClasses} value={value} onChange={(e) => set(e.target.value)}>
        <option value="">choose a run…</option>
        {option(value)}
        {items.map((r) => (
          <option key={r.id} value={r.id}>
            {r.id.slice(0, 8)} · {r.env}/{r.split} · {r.policyLabel} · {r.status}
          </option>
        ))}
      </select>
    </div>
  );
  return (
    <Form
      aria-label="Runs to compare"
      className="flex flex-wrap items-end gap-2"
      onSubmit={() => {
        if (ca && cb) router.push(compareRunsHref(ca, cb));
      }}
    >
      {select("Run A (baseline)", "compare-a", ca, setA)}
      <Button
        size="md"
        aria-label="Swap A and B"
        onClick={() => {
          setA(cb);
          setB(ca);
          if (ca && cb) router.push(compareRunsHref(cb, ca));
        }}
      >
        <ArrowLeftRight aria-hidden="true" />
      </Button>
      {select("Run B", "compare-b", cb, setB)}
      <Button type="submit" variant="primary" disabled={!ca || !cb || (ca === a && cb === b)}>
        Compare
      </Button>
    </Form>
  );
}

function RunHead({ label, r }: { label: string; r: RunComparison["a"] }) {
  return (
    <Card>
      <CardHeader>
        <CardTitle>
          {label}:{" "}
          <Link
            href={runHref(r.id)}
            className="font-mono text-indigo-700 hover:underline dark:text-indigo-300"
          >
            {r.id.slice(0, 8)}
          </Link>
        </CardTitle>
        <RunStatusBadge status={r.status} />
      </CardHeader>
      <CardBody className="space-y-1 text-xs">
        <p className="font-mono">
          {r.server} / {r.env} / {r.split}
        </p>
        <p className="text-zinc-600 dark:text-zinc-400">{r.policyLabel}</p>
        <p>
          success {formatPercent(r.successRate)} · mean reward {formatReward(r.meanReward, { digits: 3 })}
        </p>
      </CardBody>
    </Card>
  );
}

function TaskChips({ label, tasks, run }: { label: string; tasks: number[]; run: string }) {
  return (
    <div className="min-w-0">
      <h3 id={`${label}-heading`} className="text-xs font-semibold">
        {label} ({tasks.length})
      </h3>
      {tasks.length === 0 ? (
        <p className="text-xs text-zinc-500">none</p>
      ) : (
        <ul aria-labelledby={`${label}-heading`} className="mt-1 flex max-h-32 flex-wrap gap-1 overflow-auto">
          {tasks.map((t) => (
            <li key={t}>
              <Link
                href={runHref(run, t)}
                className="inline-block rounded bg-zinc-100 px-1.5 font-mono text-xs hover:ring-1 hover:ring-indigo-400 dark:bg-zinc-800"
                aria-label={`Task ${t}`}
              >
                {t}
              </Link>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function useComparisonRows(c: RunComparison, show: Show) {
  const gained = useMemo(() => new Set(c.gained), [c.gained]);
  const lost = useMemo(() => new Set(c.lost), [c.lost]);
  const rows = useMemo(
    () =>
      c.tasks.filter((t) =>
        show === "gained"
          ? gained.has(t.index)
          : show === "lost"
            ? lost.has(t.index)
            : show === "changed"
              ? t.delta !== null && t.delta !== 0
              : true,
      ),
    [c.tasks, show, gained, lost],
  );
  const flip = (task: number) => (gained.has(task) ? "gained" : lost.has(task) ? "lost" : null);
  return { rows, flip };
}

function Difference({ c }: { c: RunComparison }) {
  return (
    <SectionCard
      title="Difference (B − A)"
      titleId="difference-heading"
      bodyClassName="grid gap-4 sm:grid-cols-[14rem_1fr_1fr]"
      aside={<span className="text-xs text-zinc-500">{c.paired} tasks paired</span>}
    >
      <dl aria-labelledby="difference-heading">
        <dt id="mean-delta" className="text-[11px] font-medium uppercase tracking-wide text-zinc-500">
          Mean difference
        </dt>
        <dd className="font-mono text-xl font-semibold tabular-nums">{formatDelta(c.meanDelta)}</dd>
        <dd className="text-[11px] text-zinc-500">
          {c.ci95 ? `paired 95% CI ${formatInterval(c.ci95)}` : "95% CI: needs 2 paired tasks"}
        </dd>
      </dl>
      <TaskChips label="Gained" tasks={c.gained} run={c.b.id} />
      <TaskChips label="Lost" tasks={c.lost} run={c.b.id} />
    </SectionCard>
  );
}

const COMPARE_HEADER = (
  <>
    <th scope="col" className="font-semibold">
      Task
    </th>
    <th scope="col" className="font-semibold">
      A
    </th>
    <th scope="col" className="font-semibold">
      B
    </th>
    <th scope="col" className="text-right font-semibold">
      Δ mean
    </th>
    <th scope="col" className="text-right font-semibold">
      Flip
    </th>
  </>
);

function ComparedTask({
  t,
  c,
  flip,
}: {
  t: RunComparison["tasks"][number];
  c: RunComparison;
  flip: string | null;
}) {
  return (
    <>
      <th scope="row" className="text-left font-mono font-medium">
        {t.index}
      </th>
      <Side side={t.a} run={c.a.id} task={t.index} />
      <Side side={t.b} run={c.b.id} task={t.index} />
      <td
        className={cn(
          "text-right font-mono tabular-nums",
          (t.delta ?? 0) > 0 && "text-emerald-700 dark:text-emerald-400",
          (t.delta ?? 0) < 0 && "text-red-700 dark:text-red-400",
        )}
      >
        {formatDelta(t.delta)}
      </td>
      <td className="text-right">
        {flip === "gained" ? (
          <span className="text-emerald-700 dark:text-emerald-400">gained</span>
        ) : flip === "lost" ? (
          <span className="text-red-700 dark:text-red-400">lost</span>
        ) : (
          ""
        )}
      </td>
    </>
  );
}

function Comparison({ c }: { c: RunComparison }) {
  const [show, setShow] = useState<Show>("all");
  const { rows, flip } = useComparisonRows(c, show);
  const virtual = useVirtualRows(rows.length, ROW);
  const sameSplit = c.a.env === c.b.env && c.a.split === c.b.split;
  return (
    <div className="mt-4 space-y-4">
      {!sameSplit && (
        <p
          role="status"
          className="rounded-md bg-amber-50 p-2 text-xs text-amber-900 dark:bg-amber-950 dark:text-amber-200"
        >
          These runs played different environments or splits: tasks are paired by index only.
        </p>
      )}
      <div className="grid gap-4 md:grid-cols-2">
        <RunHead label="A" r={c.a} />
        <RunHead label="B" r={c.b} />
      </div>
      <Difference c={c} />
      <Card>
        <CardHeader>
          <CardTitle id="compare-tasks-heading">Tasks</CardTitle>
          <div className="flex items-center gap-1.5">
            <ShowSelect<Show> id="compare-show" value={show} onChange={setShow} labels={SHOWN} />
            <span className="text-xs text-zinc-500" role="status">
              {rows.length.toLocaleString("en-US")} tasks
            </span>
          </div>
        </CardHeader>
        <VirtualTable
          rows={virtual}
          count={rows.length}
          labelledBy="compare-tasks-heading"
          cols="5rem 1fr 1fr 6rem 6rem"
          header={COMPARE_HEADER}
          rowKey={(i) => rows[i]!.index}
          row={(i) => <ComparedTask t={rows[i]!} c={c} flip={flip(rows[i]!.index)} />}
        />
      </Card>
    </div>
  );
}

function Side({ side, run, task }: { side: CompareSide | null; run: string; task: number }) {
  if (!side) return <td className="text-zinc-400">not in this run</td>;
  return (
    <td className="truncate">
      <Link href={runHref(run, task)} prefetch={false} className="font-mono tabular-nums hover:underline">
        {formatReward(side.mean, { digits: 3 })}
      </Link>{" "}
      <span className="text-zinc-500">
        ({side.successes}/{side.completed} succeeded)
      </span>
    </td>
  );
}
