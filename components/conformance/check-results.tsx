"use client";

// The conformance check's results grouped by outcome, worst first: each check with what it
// expects, what was observed and the spec section it rests on. Passes are folded away.
import { AlertTriangle, CheckCircle2, MinusCircle, XCircle } from "lucide-react";
import { useState } from "react";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { OUTCOME_TITLES, specLabel } from "@/lib/conformance/labels";
import { CHECK_OUTCOMES, type CheckOutcome, type CheckResult } from "@/lib/conformance/types";
import { cn } from "@/lib/ui/cn";

export const OUTCOME_TONES: Record<CheckOutcome, BadgeTone> = {
  "breaks-reference-client": "red",
  error: "red",
  "differs-from-spec": "amber",
  "not-exercised": "neutral",
  pass: "green",
};

const ICONS: Record<CheckOutcome, typeof XCircle> = {
  "breaks-reference-client": XCircle,
  error: XCircle,
  "differs-from-spec": AlertTriangle,
  "not-exercised": MinusCircle,
  pass: CheckCircle2,
};

const ICON_COLORS: Record<CheckOutcome, string> = {
  "breaks-reference-client": "text-red-600 dark:text-red-400",
  error: "text-red-600 dark:text-red-400",
  "differs-from-spec": "text-amber-600 dark:text-amber-400",
  "not-exercised": "text-zinc-400 dark:text-zinc-500",
  pass: "text-emerald-600 dark:text-emerald-400",
};

/** What each group means, under its heading. */
const GROUP_HINTS: Record<CheckOutcome, string> = {
  "breaks-reference-client":
    "The reference Python client (ors.client) fails here, or silently gets something other than the server meant.",
  error: "The server failed where it should have answered (5xx, no answer, a time limit).",
  "differs-from-spec": "The specification says otherwise; the reference client copes.",
  "not-exercised": "Not observable on this server as checked; each says why and what would exercise it.",
  pass: "As the specification says, and readable by the reference client.",
};

function ResultItem({ result }: { result: CheckResult }) {
  const Icon = ICONS[result.outcome];
  return (
    <li className="flex gap-2.5 px-3 py-2.5">
      <Icon aria-hidden="true" className={cn("mt-0.5 size-4 shrink-0", ICON_COLORS[result.outcome])} />
      <div className="min-w-0 flex-1 space-y-1">
        <p className="text-sm text-zinc-900 dark:text-zinc-100">
          <span className="font-medium">{result.title}</span>{" "}
          <code className="text-xs text-zinc-500 dark:text-zinc-400">{result.id}</code>
        </p>
        <p className="break-words font-mono text-xs text-zinc-700 dark:text-zinc-300">{result.observed}</p>
        <p className="text-xs text-zinc-500 dark:text-zinc-400">
          <span className="sr-only">Spec section: </span>
          {specLabel(result)}
        </p>
      </div>
    </li>
  );
}

function Group({ outcome, results }: { outcome: CheckOutcome; results: CheckResult[] }) {
  const id = `check-group-${outcome}`;
  // Passes are many and rarely read: folded, one key press away.
  const foldable = outcome === "pass";
  const [open, setOpen] = useState(!foldable);
  return (
    <section
      aria-labelledby={id}
      className="rounded-lg border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900/40"
    >
      <div className="flex items-center justify-between gap-2 px-3 pt-2 pb-1">
        <h2
          id={id}
          className="inline-flex items-center gap-2 text-sm font-semibold text-zinc-900 dark:text-zinc-100"
        >
          {OUTCOME_TITLES[outcome]}
          <Badge tone={OUTCOME_TONES[outcome]}>{results.length}</Badge>
        </h2>
        {foldable && (
          <Button
            variant="ghost"
            size="xs"
            aria-expanded={open}
            aria-controls={`${id}-list`}
            onClick={() => setOpen((o) => !o)}
          >
            {open ? "Hide passed checks" : "Show passed checks"}
          </Button>
        )}
      </div>
      <p className="px-3 pb-2 text-xs text-zinc-500 dark:text-zinc-400">{GROUP_HINTS[outcome]}</p>
      <ul
        id={`${id}-list`}
        aria-labelledby={id}
        hidden={!open}
        className="divide-y divide-zinc-200 border-t border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800"
      >
        {results.map((r) => (
          <ResultItem key={r.id} result={r} />
        ))}
      </ul>
    </section>
  );
}

/** Results grouped by outcome (worst first), each group with its count; empty groups left out. */
export function CheckResults({ results }: { results: readonly CheckResult[] }) {
  return (
    <div className="space-y-3">
      {CHECK_OUTCOMES.map((outcome) => {
        const group = results.filter((r) => r.outcome === outcome);
        return group.length ? <Group key={outcome} outcome={outcome} results={group} /> : null;
      })}
    </div>
  );
}
