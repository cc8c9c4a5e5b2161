"use client";
// The review page (/review): review queues with each reviewer's progress, label sets, and share
// links for human baselines; a form for each.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { PageContainer, PageHeader } from "@/components/layout/page-header";
import { SectionCard } from "@/components/ui/card";
import { agreementHref, reviewQueueHref, runHref } from "@/lib/routes";
import { labelSetsQuery, type QueueWithProgress, queuesQuery } from "@/lib/ui/review-queries";
import { ItemList, Unfold } from "./form-parts";
import { LabelSetForm } from "./label-set-form";
import { QueueForm } from "./queue-form";
import { SharesSection } from "./shares-section";

function QueueRow({ q }: { q: QueueWithProgress }) {
  return (
    <li className="flex flex-col gap-1 border-t border-zinc-200 py-2 first:border-t-0 dark:border-zinc-800">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span className="font-medium">{q.name}</span>
        <span className="text-zinc-500">{q.size} episodes</span>
        {q.runId && (
          <Link href={runHref(q.runId)} className="font-mono text-xs text-zinc-500 hover:underline">
            {q.runId}
          </Link>
        )}
        {q.blind && <span className="text-xs text-zinc-500">blind</span>}
        <Link href={agreementHref(q.id)} className="ml-auto text-xs hover:underline">
          Agreement report
        </Link>
      </div>
      <ul className="flex flex-wrap gap-3 text-xs">
        {q.progress.map((p) => (
          <li key={p.reviewer}>
            <Link
              href={reviewQueueHref(q.id, p.reviewer)}
              className="text-indigo-700 hover:underline dark:text-indigo-300"
            >
              Review as {p.reviewer}
            </Link>{" "}
            <span className="tabular-nums text-zinc-500">
              {p.labelled}/{p.assigned}
            </span>
          </li>
        ))}
      </ul>
    </li>
  );
}

export function ReviewHome() {
  const queues = useQuery(queuesQuery());
  const sets = useQuery(labelSetsQuery());
  return (
    <PageContainer>
      <PageHeader
        title="Review"
        description="Label episodes, see how far an environment's reward agrees with people, and share a split for human baselines."
      />
      <div className="grid gap-5 xl:grid-cols-2">
        <SectionCard title="Review queues" titleId="queues-title" bodyClassName="flex flex-col gap-4">
          <ItemList query={queues} labelledBy="queues-title" empty="No review queue yet.">
            {(q) => <QueueRow key={q.id} q={q} />}
          </ItemList>
          <Unfold summary="New review queue">
            {sets.data?.items.length ? (
              <QueueForm labelSets={sets.data.items} />
            ) : (
              <p className="text-sm text-zinc-500">Create a label set first.</p>
            )}
          </Unfold>
        </SectionCard>
        <SectionCard title="Label sets" titleId="sets-title" bodyClassName="flex flex-col gap-4">
          <ItemList
            query={sets}
            labelledBy="sets-title"
            empty="No label set yet."
            className="flex flex-col gap-1 text-sm"
          >
            {(s) => (
              <li key={s.id}>
                <span className="font-medium">{s.name}</span>{" "}
                <span className="font-mono text-xs text-zinc-500">
                  {s.server}/{s.env}
                </span>{" "}
                <span className="text-xs text-zinc-500">
                  {s.target === "step" ? "steps" : "episodes"} ·{" "}
                  {Object.keys(s.schema.properties ?? {}).join(", ")}
                  {s.verdict ? ` · verdict: ${s.verdict}` : " · no verdict"}
                </span>
              </li>
            )}
          </ItemList>
          <Unfold summary="New label set">
            <LabelSetForm />
          </Unfold>
        </SectionCard>
        <div className="xl:col-span-2">
          <SharesSection />
        </div>
      </div>
    </PageContainer>
  );
}
