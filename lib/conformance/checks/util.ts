// Small helpers the check modules share: random suffixes for names no server knows, lenient views
// of JSON answers, and short lists for the `observed` texts.
import type { ToolSpec } from "@/lib/ors/protocol";
import { type ProbeAnswer, parseJson } from "../probe";

export function hex(n = 8): string {
  return crypto.randomUUID().replace(/-/g, "").slice(0, n);
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The answer's JSON value, or undefined when it is not JSON. */
export function bodyOf(a: ProbeAnswer): unknown {
  const body = parseJson(a);
  return body.ok ? body.value : undefined;
}

export function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function list(names: readonly string[], max = 6): string {
  return names.length > max ? `${names.slice(0, max).join(", ")}, … (${names.length})` : names.join(", ");
}

/** Lenient view of a /tools answer: the tools it lists, whatever else is wrong with it. */
export function toolsOf(value: unknown): ToolSpec[] {
  const tools = isObject(value) && Array.isArray(value.tools) ? value.tools : [];
  return tools
    .filter((t): t is Record<string, unknown> => isObject(t) && typeof t.name === "string")
    .map((t) => ({
      name: t.name as string,
      description: typeof t.description === "string" ? t.description : "",
      input_schema: isObject(t.input_schema) ? t.input_schema : null,
    }));
}
