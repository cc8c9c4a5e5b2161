// What one check found: findings with an outcome each, folded into the check's verdict (the worst
// outcome, with the text of every finding that is not a pass). A finding may name the known
// framework deviation it is (./frameworks.ts), which decides whose it is at the end of the run.
import type { DeviationId } from "./frameworks";
import { describeAnswer, type ProbeAnswer } from "./probe";
import { type CheckOutcome, isFinding, outcomeRank } from "./types";

export interface Verdict {
  outcome: CheckOutcome;
  observed: string;
  /** The known deviations among the findings. */
  deviations?: DeviationId[];
  /** Some finding is no known deviation (so it is the author's whatever the framework). */
  unexplained?: boolean;
}

interface Item {
  outcome: CheckOutcome;
  observed: string;
  deviations: DeviationId[];
  unexplained: boolean;
}

export class Findings {
  private readonly items: Item[] = [];

  add(outcome: CheckOutcome, observed: string, deviation?: DeviationId): this {
    return this.merge(verdictOf(outcome, observed, deviation));
  }
  pass(observed: string): this {
    return this.add("pass", observed);
  }
  differs(observed: string, deviation?: DeviationId): this {
    return this.add("differs-from-spec", observed, deviation);
  }
  breaks(observed: string, deviation?: DeviationId): this {
    return this.add("breaks-reference-client", observed, deviation);
  }
  breaksOpenReward(observed: string, deviation?: DeviationId): this {
    return this.add("breaks-openreward-client", observed, deviation);
  }
  error(observed: string): this {
    return this.add("error", observed);
  }
  notExercised(observed: string): this {
    return this.add("not-exercised", observed);
  }
  merge(v: Verdict): this {
    const deviations = v.deviations ?? [];
    this.items.push({
      outcome: v.outcome,
      observed: v.observed,
      deviations,
      unexplained: isFinding(v.outcome) && (v.unexplained ?? deviations.length === 0),
    });
    return this;
  }

  get outcome(): CheckOutcome {
    let worst: CheckOutcome = "pass";
    for (const i of this.items) if (outcomeRank(i.outcome) < outcomeRank(worst)) worst = i.outcome;
    return worst;
  }

  /** The worst outcome; its findings first, then the other findings that are not passes. */
  verdict(): Verdict {
    const outcome = this.outcome;
    if (outcome === "pass") return { outcome, observed: this.items.map((i) => i.observed).join("; ") };
    const texts = [
      ...this.items.filter((i) => i.outcome === outcome),
      ...this.items.filter((i) => i.outcome !== outcome && i.outcome !== "pass"),
    ].map((i) => i.observed);
    const deviations = [...new Set(this.items.flatMap((i) => i.deviations))];
    const unexplained = this.items.some((i) => i.unexplained);
    return { outcome, observed: texts.join("; "), deviations, unexplained };
  }
}

function verdictOf(outcome: CheckOutcome, observed: string, deviation?: DeviationId): Verdict {
  if (!isFinding(outcome)) return { outcome, observed };
  return deviation
    ? { outcome, observed, deviations: [deviation] }
    : { outcome, observed, unexplained: true };
}

export const pass = (observed: string): Verdict => ({ outcome: "pass", observed });
export const differs = (observed: string, deviation?: DeviationId): Verdict =>
  verdictOf("differs-from-spec", observed, deviation);
export const breaks = (observed: string, deviation?: DeviationId): Verdict =>
  verdictOf("breaks-reference-client", observed, deviation);
export const breaksOpenReward = (observed: string, deviation?: DeviationId): Verdict =>
  verdictOf("breaks-openreward-client", observed, deviation);
export const failed = (observed: string): Verdict => verdictOf("error", observed);
export const notExercised = (observed: string): Verdict => ({ outcome: "not-exercised", observed });

/** Whether a body is FastAPI's validation error (`{"detail": [{"loc": ..., "msg": ...}]}`). */
function isValidationList(answer: ProbeAnswer): boolean {
  try {
    const v = JSON.parse(answer.text) as { detail?: unknown };
    return Array.isArray(v.detail);
  } catch {
    return false;
  }
}

/**
 * An error answer the spec fixes the status of: a pass when it is `expected`, else how it differs
 * (a 422 with a validation list, a redirect, a success, another status).
 */
export function expectStatus(answer: ProbeAnswer, expected: number, what: string): Verdict {
  if (answer.status === expected) return pass(`${what}: ${describeAnswer(answer, 80)}`);
  if (answer.status === 422 && isValidationList(answer))
    return differs(
      `${what}: ${describeAnswer(answer, 90)}: a validation list where the spec says ${expected}`,
      "validation-422",
    );
  if (answer.status >= 300 && answer.status < 400)
    return differs(
      `${what}: ${describeAnswer(answer, 0)}: a redirect where the spec says ${expected}`,
      // The reference SDK's middleware answers 308; other redirects are no known deviation.
      answer.status === 308 ? "redirect-default-env" : undefined,
    );
  return differs(`${what}: ${describeAnswer(answer, 90)}; the spec says ${expected}`);
}
