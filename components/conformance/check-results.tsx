"use client";

// The conformance check's results: the environment author's findings grouped by outcome, worst
// first; then the server framework's findings (the reference Python SDK's, say) in a section of
// their own, each labelled with the framework; then the waived ones, what was not exercised, and
// the passes, folded away. Each check shows what it expects, what was observed and its spec section.
import { AlertTriangle, CheckCircle2, Layers, MinusCircle, Plug, XCircle } from "lucide-react";
import { type ReactNode, useState } from "react";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { FRAMEWORKS } from "@/lib/conformance/frameworks";
import { OUTCOME_TITLES, specLabel } from "@/lib/conformance/labels";
import {
  CHECK_OUTCOMES,
  type CheckOutcome,
  type CheckResult,
  isFinding,
  type RecognisedFramework,
} from "@/lib/conformance/types";
import { cn } from "@/lib/ui/cn";
import { ResultRow } from "./result-row";

export const OUTCOME_TONES: Record<CheckOutcome, BadgeTone> = {
  "breaks-reference-client": "red",
  error: "red",
  "differs-from-spec": "amber",
  "breaks-openreward-client": "indigo",
  "not-exercised": "neutral",
  pass: "green",
};

const ICONS: Record<CheckOutcome, typeof XCircle> = {
  "breaks-reference-client": XCircle,
  error: XCircle,
  "differs-from-spec": AlertTriangle,
  "breaks-openreward-client": Plug,
  "not-exercised": MinusCircle,
  pass: CheckCircle2,
};

/** What each group means, under its heading. */
const GROUP_HINTS: Record<CheckOutcome, string> = {
  "breaks-reference-client":
    "The reference Python client (ors.client) fails here, or silently gets something other than the server meant.",
  error: "The server failed where it should have answered (5xx, no answer, a time limit).",
  "differs-from-spec": "The specification says otherwise; the reference client copes.",
  "breaks-openreward-client":
    "What the OpenReward platform's Python client (openreward) needs beyond the spec, and does not get here. Not a spec failure; not counted unless the check is strict.",
  "not-exercised": "Not observable on this server as checked; each says why and what would exercise it.",
  pass: "As the specification says, and readable by the reference client.",
};

/** The text of a known deviation of any framework, by id. */
function deviationText(id: string): string | null {
  for (const f of FRAMEWORKS) {
    const text = (f.deviations as Record<string, string | undefined>)[id];
    if (text) return text;
  }
  return null;
}

function ResultItem({ result, label }: { result: CheckResult; label?: ReactNode }) {
  const known = result.deviations.map(deviationText).filter(Boolean);
  return (
    <ResultRow
      result={result}
      icon={ICONS[result.outcome]}
      tone={OUTCOME_TONES[result.outcome]}
      label={label}
    >
      <p className="break-words font-mono text-xs text-zinc-700 dark:text-zinc-300">{result.observed}</p>
      {known.length > 0 && (
        <p className="text-xs text-sky-800 dark:text-sky-300">
          <span className="font-medium">Known deviation:</span> {known.join("; ")}
        </p>
      )}
      <p className="text-xs text-zinc-500 dark:text-zinc-400">
        <span className="sr-only">Spec section: </span>
        {specLabel(result)}
      </p>
    </ResultRow>
  );
}

function Section({
  id,
  title,
  count,
  tone,
  hint,
  foldable = false,
  framed = false,
  children,
}: {
  id: string;
  title: ReactNode;
  count: number;
  tone: BadgeTone;
  hint: ReactNode;
  foldable?: boolean;
  /** Set apart visually: the server framework's findings. */
  framed?: boolean;
  children: ReactNode;
}) {
  const [open, setOpen] = useState(!foldable);
  return (
    <section
      aria-labelledby={id}
      className={cn(
        "rounded-lg border",
        framed
          ? "border-dashed border-sky-300 bg-sky-50/60 dark:border-sky-800 dark:bg-sky-950/30"
          : "border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900/40",
      )}
    >
      <div className="flex items-center justify-between gap-2 px-3 pt-2 pb-1">
        <h2
          id={id}
          className="inline-flex items-center gap-2 text-sm font-semibold text-zinc-900 dark:text-zinc-100"
        >
          {title}
          <Badge tone={tone}>{count}</Badge>
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
      <p className="px-3 pb-2 text-xs text-zinc-500 dark:text-zinc-400">{hint}</p>
      <ul
        id={`${id}-list`}
        aria-labelledby={id}
        hidden={!open}
        className={cn(
          "divide-y border-t",
          framed
            ? "divide-sky-200 border-sky-200 dark:divide-sky-900 dark:border-sky-900"
            : "divide-zinc-200 border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800",
        )}
      >
        {children}
      </ul>
    </section>
  );
}

function OutcomeBadge({ outcome }: { outcome: CheckOutcome }) {
  return <Badge tone={OUTCOME_TONES[outcome]}>{OUTCOME_TITLES[outcome]}</Badge>;
}

/** The results of one outcome, as a section (none when there are none). */
function OutcomeGroup({
  outcome,
  results,
  foldable,
}: {
  outcome: CheckOutcome;
  results: readonly CheckResult[];
  foldable?: boolean;
}) {
  const group = results.filter((r) => r.outcome === outcome);
  if (!group.length) return null;
  return (
    <Section
      id={`check-group-${outcome}`}
      title={OUTCOME_TITLES[outcome]}
      count={group.length}
      tone={OUTCOME_TONES[outcome]}
      hint={GROUP_HINTS[outcome]}
      foldable={foldable}
    >
      {group.map((r) => (
        <ResultItem key={r.id} result={r} />
      ))}
    </Section>
  );
}

/**
 * Results in sections: the author's findings by outcome (worst first), the framework's findings,
 * the waived ones, not exercised, passed (folded). Empty sections are left out. While a check runs
 * no owner is known yet, so every finding shows under its outcome until the report comes.
 */
export function CheckResults({
  results,
  framework = null,
  strict = false,
}: {
  results: readonly CheckResult[];
  framework?: RecognisedFramework | null;
  strict?: boolean;
}) {
  const theirs = results.filter((r) => r.owner === "framework" && !r.waived);
  const waived = results.filter((r) => r.waived && isFinding(r.outcome));
  const mine = results.filter((r) => r.owner !== "framework" && !(r.waived && isFinding(r.outcome)));
  const name = framework?.name ?? "server framework";
  return (
    <div className="space-y-3">
      {CHECK_OUTCOMES.filter(isFinding).map((outcome) => (
        <OutcomeGroup key={outcome} outcome={outcome} results={mine} />
      ))}
      {theirs.length > 0 && (
        <Section
          id="check-group-framework"
          framed
          title={
            <>
              <Layers aria-hidden="true" className="size-4 text-sky-600 dark:text-sky-400" />
              The server framework's findings: {name}
            </>
          }
          count={theirs.length}
          tone="sky"
          hint={
            <>
              Known deviations of the {name} under this server (recognised by{" "}
              {framework?.evidence.length ?? 0} of its own behaviours). The environment's author cannot fix
              them; they{" "}
              {strict ? "count here because the check was strict" : "do not count toward the verdict"}.
            </>
          }
        >
          {theirs.map((r) => (
            <ResultItem
              key={r.id}
              result={r}
              label={
                <>
                  <Badge tone="sky">{name}</Badge>
                  <OutcomeBadge outcome={r.outcome} />
                </>
              }
            />
          ))}
        </Section>
      )}
      {waived.length > 0 && (
        <Section
          id="check-group-waived"
          title="Waived"
          count={waived.length}
          tone="neutral"
          hint="Findings of checks waived for this run: shown, never counted."
        >
          {waived.map((r) => (
            <ResultItem key={r.id} result={r} label={<OutcomeBadge outcome={r.outcome} />} />
          ))}
        </Section>
      )}
      {(["not-exercised", "pass"] as const).map((outcome) => (
        <OutcomeGroup key={outcome} outcome={outcome} results={results} foldable={outcome === "pass"} />
      ))}
    </div>
  );
}
