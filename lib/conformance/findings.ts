// What one check found: findings with an outcome each, folded into the check's verdict (the worst
// outcome, with the text of every finding that is not a pass).
import { describeAnswer, type ProbeAnswer } from "./probe";
import { type CheckOutcome, outcomeRank } from "./types";

export interface Verdict {
  outcome: CheckOutcome;
  observed: string;
}

export class Findings {
  private readonly items: Verdict[] = [];

  add(outcome: CheckOutcome, observed: string): this {
    this.items.push({ outcome, observed });
    return this;
  }
  pass(observed: string): this {
    return this.add("pass", observed);
  }
  differs(observed: string): this {
    return this.add("differs-from-spec", observed);
  }
  breaks(observed: string): this {
    return this.add("breaks-reference-client", observed);
  }
  error(observed: string): this {
    return this.add("error", observed);
  }
  notExercised(observed: string): this {
    return this.add("not-exercised", observed);
  }
  merge(v: Verdict): this {
    return this.add(v.outcome, v.observed);
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
    return { outcome, observed: texts.join("; ") };
  }
}

export const pass = (observed: string): Verdict => ({ outcome: "pass", observed });
export const differs = (observed: string): Verdict => ({ outcome: "differs-from-spec", observed });
export const breaks = (observed: string): Verdict => ({ outcome: "breaks-reference-client", observed });
export const failed = (observed: string): Verdict => ({ outcome: "error", observed });
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
    );
  if (answer.status >= 300 && answer.status < 400)
    return differs(`${what}: ${describeAnswer(answer, 0)}: a redirect where the spec says ${expected}`);
  return differs(`${what}: ${describeAnswer(answer, 90)}; the spec says ${expected}`);
}
