"use client";
// A queue's agreement report (/review/<id>/agreement): the verifier's success against the reviewers'
// verdict as a confusion matrix whose cells open the episodes behind them, the verifier's false-
// positive and false-negative rates with Wilson 95% intervals, Cohen's κ of each pair of reviewers,
// and the action that turns the confirmed false positives into golden episodes.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { PageContainer, PageHeader } from "@/components/layout/page-header";
import { Button } from "@/components/ui/button";
import { SectionCard } from "@/components/ui/card";
import { ErrorPanel } from "@/components/ui/error-panel";
import { SkeletonBlock } from "@/components/ui/skeleton";
import type { Proportion } from "@/lib/review/agreement";
import { reviewHref, reviewQueueHref, runHref, trajectoryHref } from "@/lib/routes";
import { type AgreementReport, agreementQuery, useGoldenFalsePositives } from "@/lib/ui/review-queries";
import { errorMessage } from "@/lib/ui/use-episode";

type Cell = "tp" | "fp" | "fn" | "tn";

const pct = (v: number | null | undefined) => (v == null ? "—" : `${(v * 100).toFixed(1)}%`);

export function RateText({ p }: { p: Proportion }) {
  return (
    <span className="tabular-nums">
      {pct(p.rate)}{" "}
      <span className="text-zinc-500">
        ({p.k} of {p.n})
      </span>
      {p.ci95 && (
        <span className="text-zinc-500">
          {" "}
          95% [{pct(p.ci95[0])}, {pct(p.ci95[1])}]
        </span>
      )}
    </span>
  );
}

// The matrix's rows: the verifier's verdict, then its cells where people judged correct and incorrect.
const ROWS: [string, Cell, Cell][] = [
  ["success", "tp", "fp"],
  ["failure", "fn", "tn"],
];
const CELL_NAMES: Record<Cell, string> = {
  tp: "true positives",
  fp: "false positives",
  fn: "false negatives",
  tn: "true negatives",
};

function Matrix({ r, open, onOpen }: { r: AgreementReport; open: Cell | null; onOpen: (c: Cell) => void }) {
  const cell = (c: Cell, what: string) => (
    <td className="p-1">
      <Button
        variant={open === c ? "primary" : "secondary"}
        className="w-full justify-center tabular-nums"
        aria-pressed={open === c}
        aria-label={`${what}: ${r.confusion[c].length} episodes`}
        onClick={() => onOpen(c)}
      >
        {r.confusion[c].length}
      </Button>
    </td>
  );
  return (
    <table className="text-sm" aria-label="Confusion matrix: the verifier against the reviewers">
      <thead>
        <tr>
          <td />
          <th scope="col" className="px-2 text-xs font-medium text-zinc-500">
            people: correct
          </th>
          <th scope="col" className="px-2 text-xs font-medium text-zinc-500">
            people: incorrect
          </th>
        </tr>
      </thead>
      <tbody>
        {ROWS.map(([verifier, correct, incorrect]) => (
          <tr key={verifier}>
            <th scope="row" className="pr-2 text-right text-xs font-medium text-zinc-500">
              verifier: {verifier}
            </th>
            {cell(correct, `Verifier ${verifier}, people correct (${CELL_NAMES[correct]})`)}
            {cell(incorrect, `Verifier ${verifier}, people incorrect (${CELL_NAMES[incorrect]})`)}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function CellEpisodes({ r, cell }: { r: AgreementReport; cell: Cell }) {
  const ids = r.confusion[cell];
  const byId = new Map(r.episodes.map((e) => [e.trajectoryId, e]));
  return (
    <section aria-label={`The ${CELL_NAMES[cell]}`} className="flex flex-col gap-1">
      <h3 className="text-sm font-semibold">
        {ids.length} {CELL_NAMES[cell]}
      </h3>
      <ul className="flex flex-col gap-1 text-sm">
        {ids.map((id) => {
          const e = byId.get(id);
          return (
            <li key={id} className="flex flex-wrap gap-2">
              <Link
                href={trajectoryHref(id)}
                className="font-mono text-indigo-700 hover:underline dark:text-indigo-300"
              >
                {id}
              </Link>
              <span className="text-zinc-500">reward {e?.reward}</span>
              {e &&
                Object.entries(e.reviewers).map(([who, v]) => (
                  <span key={who} className="text-zinc-500">
                    {who}: {v === null ? "—" : v ? "correct" : "incorrect"}
                  </span>
                ))}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function Golden({ queueId, count }: { queueId: string; count: number }) {
  const golden = useGoldenFalsePositives(queueId);
  return (
    <div className="flex flex-col gap-1">
      <Button
        variant="secondary"
        className="self-start"
        disabled={!count || golden.isPending}
        onClick={() => golden.mutate()}
      >
        Make the {count} false positive{count === 1 ? "" : "s"} golden episodes
      </Button>
      <p className="text-xs text-zinc-500">
        Each becomes a golden copy with the reward its reviewers said, which <code>ors-playground test</code>{" "}
        replays: the fixed verifier is held to them.
      </p>
      {golden.isError && <p role="alert">{errorMessage(golden.error)}</p>}
      {golden.data && (
        <p role="status" className="text-sm">
          Golden:{" "}
          {golden.data.golden.map((g) => (
            <Link key={g.id} href={trajectoryHref(g.id)} className="mr-2 font-mono hover:underline">
              {g.id}
            </Link>
          ))}
        </p>
      )}
    </div>
  );
}

function Report({ r }: { r: AgreementReport }) {
  const [open, setOpen] = useState<Cell | null>(null);
  if (!r.rule)
    return (
      <p>
        The label set “{r.labelSet.name}” has no verdict field: there is no notion of correct to compare with.
      </p>
    );
  return (
    <div className="grid gap-5 lg:grid-cols-2">
      <SectionCard title="The verifier against the reviewers" bodyClassName="flex flex-col gap-3">
        <p className="text-xs text-zinc-500">
          Success: the episode finished with a reward of at least {r.successAt}. People: the majority verdict
          of its reviewers ({r.rule.field}); {r.disputed.length} disputed (a tie) and {r.unlabelled.length}{" "}
          not labelled yet are left out.
        </p>
        <Matrix r={r} open={open} onOpen={(c) => setOpen((o) => (o === c ? null : c))} />
        {open && <CellEpisodes r={r} cell={open} />}
        <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
          <dt className="text-zinc-500">False-positive rate</dt>
          <dd data-testid="fp-rate">
            <RateText p={r.rates.falsePositive} />
          </dd>
          <dt className="text-zinc-500">False-negative rate</dt>
          <dd data-testid="fn-rate">
            <RateText p={r.rates.falseNegative} />
          </dd>
          <dt className="text-zinc-500">Agreement</dt>
          <dd>
            <RateText p={r.rates.agreement} />
          </dd>
        </dl>
        <Golden queueId={r.queue.id} count={r.confusion.fp.length} />
      </SectionCard>
      <SectionCard title="Between reviewers">
        {r.kappa.length === 0 ? (
          <p className="text-sm text-zinc-500">No episode was labelled by two reviewers yet.</p>
        ) : (
          <table className="w-full text-sm">
            <thead>
              <tr className="text-left text-xs text-zinc-500">
                <th className="font-medium">Reviewers</th>
                <th className="font-medium">Episodes</th>
                <th className="font-medium">Agree</th>
                <th className="font-medium">Cohen's κ</th>
              </tr>
            </thead>
            <tbody>
              {r.kappa.map((k) => (
                <tr key={`${k.a} ${k.b}`}>
                  <td>
                    {k.a} & {k.b}
                  </td>
                  <td className="tabular-nums">{k.n}</td>
                  <td className="tabular-nums">{pct(k.observed)}</td>
                  <td className="tabular-nums" data-testid={`kappa-${k.a}-${k.b}`}>
                    {k.kappa === null ? "undefined" : k.kappa.toFixed(3)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </SectionCard>
    </div>
  );
}

export function AgreementView({ queueId }: { queueId: string }) {
  const q = useQuery(agreementQuery(queueId));
  const name = q.data?.queue.name ?? "Agreement";
  return (
    <PageContainer>
      <PageHeader
        crumbs={[
          { href: reviewHref(), label: "Review" },
          { href: reviewQueueHref(queueId), label: name },
          { label: "Agreement" },
        ]}
        title={`Agreement: ${name}`}
        description={
          q.data?.queue.runId ? (
            <>
              Episodes of run{" "}
              <Link className="font-mono hover:underline" href={runHref(q.data.queue.runId)}>
                {q.data.queue.runId}
              </Link>
              , labelled in “{q.data.labelSet.name}”.
            </>
          ) : undefined
        }
      />
      {q.isError ? (
        <ErrorPanel error={q.error} context={{ what: "the agreement report" }} />
      ) : q.data ? (
        <Report r={q.data} />
      ) : (
        <SkeletonBlock label="Computing the agreement" lines={4} />
      )}
    </PageContainer>
  );
}
