// "Part of run X, task i, repeat r" on a run's episode (its trajectory's run tag), linking back to
// the run's results with that task shown. Repeats read from 1, as on the run's page.
import { ListChecks } from "lucide-react";
import Link from "next/link";
import { runHref } from "@/lib/routes";
import type { RunTag } from "@/lib/trajectory/schema";

export function RunTagLink({ run }: { run: RunTag }) {
  return (
    <span>
      <ListChecks aria-hidden="true" className="mr-1 inline size-3.5 align-[-2px]" />
      part of{" "}
      <Link
        href={runHref(run.id, run.task_index)}
        className="font-medium text-indigo-700 underline dark:text-indigo-300"
        title={`Run ${run.id}`}
      >
        run {run.id.slice(0, 8)}
      </Link>
      , task {run.task_index}, repeat {run.repeat + 1}
    </span>
  );
}
