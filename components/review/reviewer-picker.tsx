// Who is reviewing: the queue's reviewers, each a link to their own list of episodes (a reviewer's
// page is a URL: /review/<id>?reviewer=<name>).
import Link from "next/link";
import { buttonClasses } from "@/components/ui/button";
import { reviewQueueHref } from "@/lib/routes";

export function ReviewerPicker({
  queueId,
  reviewers,
  unknown,
}: {
  queueId: string;
  reviewers: readonly string[];
  /** A name asked for that has nothing in the queue. */
  unknown: string | null;
}) {
  return (
    <section aria-labelledby="who-reviews" className="flex flex-col gap-2">
      {unknown && (
        <p role="alert" className="text-sm text-amber-800 dark:text-amber-300">
          {unknown} has no episode in this queue.
        </p>
      )}
      <h2 id="who-reviews" className="text-sm font-semibold">
        Who is reviewing?
      </h2>
      <ul className="flex flex-wrap gap-2">
        {reviewers.map((r) => (
          <li key={r}>
            <Link href={reviewQueueHref(queueId, r)} className={buttonClasses("secondary", "sm")}>
              Review as {r}
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}
