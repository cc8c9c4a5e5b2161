// Which tools suit which check of the conformance check (a tool that looks slow, one that looks
// large, the order to try tools in for a call), with the inputs each gets; the inputs themselves are
// drawn from the tools' schemas by lib/schema-inputs.ts, re-exported here for the checks.
import type { ToolSpec } from "@/lib/ors/protocol";
import { durationInput, type JsonInput, minimalInput, takesNoInput } from "@/lib/schema-inputs";

export {
  type Generated,
  invalidInput,
  type JsonInput,
  minimalInput,
  randomInput,
  takesNoInput,
} from "@/lib/schema-inputs";

const LARGE_WORDS = /\b(large|big|huge|long|dump|bulk|chunk(ed|s|ing)?|mb|kb|bytes)\b/i;
const SLOW_WORDS = /\b(slow|wait|sleep|delay|long[- ]running|seconds|ping(s)?)\b/i;

function words(tool: ToolSpec): string {
  return `${tool.name.replace(/[_-]/g, " ")} ${tool.description}`;
}

/** Tools whose name or description suggests a large result (for the chunking check). */
export function looksLarge(tool: ToolSpec): boolean {
  return LARGE_WORDS.test(words(tool));
}

/** Tools whose name or description suggests they take a while (for the keep-alive ping check). */
export function looksSlow(tool: ToolSpec): boolean {
  return SLOW_WORDS.test(words(tool));
}

/**
 * An input that makes a slow-looking tool run about `seconds`, when its schema has a duration field
 * (`seconds`, `delay_ms`, ...) whose bounds allow it; null otherwise.
 */
export function slowInput(tool: ToolSpec, seconds: number): JsonInput | null {
  return durationInput(tool.input_schema, seconds);
}

/**
 * Tools in the order they suit a plain call: those taking no input first, then those whose input
 * can be generated; tools that look slow or large last (they would make the check slow).
 */
export function rankToolsForCall(tools: readonly ToolSpec[]): { tool: ToolSpec; input: JsonInput }[] {
  const out: { tool: ToolSpec; input: JsonInput; rank: number; i: number }[] = [];
  tools.forEach((tool, i) => {
    const input = minimalInput(tool.input_schema);
    if (!input.ok) return;
    let rank = takesNoInput(tool) ? 0 : 1;
    if (looksSlow(tool) || looksLarge(tool)) rank += 2;
    out.push({ tool, input: input.value, rank, i });
  });
  out.sort((a, b) => a.rank - b.rank || a.i - b.i);
  return out.map(({ tool, input }) => ({ tool, input }));
}
