// The review page's small shared parts: a form's submit button with the API's refusal beside it,
// a section's list (or, while it loads or is empty, saying so), and a section that unfolds a form
// (`New review queue`, `New label set`, `New share link`).
import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { errorMessage } from "@/lib/ui/use-episode";

export function FormActions({
  label,
  disabled,
  error,
  className = "sm:col-span-2",
}: {
  label: string;
  disabled: boolean;
  /** The last refusal, if any. */
  error: unknown;
  className?: string;
}) {
  return (
    <div className={`flex items-center gap-2 ${className}`}>
      <Button type="submit" variant="primary" disabled={disabled}>
        {label}
      </Button>
      {error != null && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          {errorMessage(error)}
        </p>
      )}
    </div>
  );
}

/** A section's items as a list named by its title, or "Loading…" or what it says when there are none. */
export function ItemList<T>({
  query,
  labelledBy,
  empty,
  className,
  children,
}: {
  /** The section's query (its answer's `items`). */
  query: { data?: { items: T[] }; isPending: boolean };
  labelledBy: string;
  empty: string;
  className?: string;
  children: (item: T) => ReactNode;
}) {
  const items = query.data?.items;
  if (!items?.length) return <p className="text-sm text-zinc-500">{query.isPending ? "Loading…" : empty}</p>;
  return (
    <ul aria-labelledby={labelledBy} className={className}>
      {items.map(children)}
    </ul>
  );
}

export function Unfold({ summary, children }: { summary: string; children: ReactNode }) {
  return (
    <details>
      <summary className="cursor-pointer text-sm font-medium">{summary}</summary>
      <div className="pt-3">{children}</div>
    </details>
  );
}
