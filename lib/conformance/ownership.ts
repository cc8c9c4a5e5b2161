// Whose each finding is and what counts toward the exit code (docs/check.md "Whose finding", "Exit
// codes"): the framework's when it was recognised and the finding is all its known deviations; by
// default the author's breaks and errors count; `strict` counts all; waived checks never count.
import type { CheckId } from "./catalogue";
import { type DeviationId, type MarkerId, recogniseFramework } from "./frameworks";
import {
  type CheckOutcome,
  type CheckPolicy,
  type CheckResult,
  type FindingOwner,
  isFinding,
  type RecognisedFramework,
} from "./types";

/** The outcomes the default policy counts (the author's findings only). */
export const COUNTED_BY_DEFAULT: readonly CheckOutcome[] = ["breaks-reference-client", "error"];

/** What a check's verdict said about known deviations (kept beside its result during the run). */
export interface VerdictTags {
  deviations: DeviationId[];
  unexplained: boolean;
}

export function policyOf(options: { strict?: boolean; allow?: readonly string[] }): CheckPolicy {
  return { strict: options.strict ?? false, allow: [...new Set(options.allow ?? [])] };
}

/** Whether a result counts toward the exit code under `policy`. */
export function counts(
  result: Pick<CheckResult, "outcome" | "owner" | "waived">,
  policy: CheckPolicy,
): boolean {
  if (result.waived || !isFinding(result.outcome)) return false;
  return policy.strict || (result.owner === "author" && COUNTED_BY_DEFAULT.includes(result.outcome));
}

/** The results with their owners and counts decided, and the framework recognised (or null). */
export function decideOwnership(
  results: readonly CheckResult[],
  tags: ReadonlyMap<CheckId, VerdictTags>,
  markers: ReadonlySet<MarkerId>,
  policy: CheckPolicy,
): { results: CheckResult[]; framework: RecognisedFramework | null } {
  const recognised = recogniseFramework(markers);
  const known = recognised ? new Set(Object.keys(recognised.framework.deviations)) : new Set<string>();
  const decided = results.map((r): CheckResult => {
    const waived = policy.allow.includes(r.id);
    if (!isFinding(r.outcome)) return { ...r, owner: null, deviations: [], waived, counted: false };
    const t = tags.get(r.id as CheckId);
    const theirs =
      !!recognised &&
      !!t &&
      !t.unexplained &&
      t.deviations.length > 0 &&
      t.deviations.every((d) => known.has(d));
    const owner: FindingOwner = theirs ? "framework" : "author";
    const result = { ...r, owner, deviations: theirs ? [...t!.deviations] : [], waived };
    return { ...result, counted: counts(result, policy) };
  });
  const framework = recognised
    ? { id: recognised.framework.id, name: recognised.framework.name, evidence: recognised.evidence }
    : null;
  return { results: decided, framework };
}
