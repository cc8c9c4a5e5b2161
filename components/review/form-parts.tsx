// The review page's small shared parts: a form's submit button with the API's refusal beside it,
// and a section that unfolds a form (`New review queue`, `New label set`, `New share link`).
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

export function Unfold({ summary, children }: { summary: string; children: ReactNode }) {
  return (
    <details>
      <summary className="cursor-pointer text-sm font-medium">{summary}</summary>
      <div className="pt-3">{children}</div>
    </details>
  );
}
