// Checks and serializes what environments return (prompt blocks, tool results) into the wire
// shapes of the spec ("Data Types": TextBlock, ImageBlock, ToolOutput, RunToolOutput), by hand:
// this is on the hot path of every episode, and an environment bug must name what was wrong.
import type { Block } from "../protocol/schemas";
import type { ToolResult } from "../sdk/define";

export class OutputError extends Error {}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Normalizes blocks to the wire shape (`detail` defaults to null); throws naming the bad field. */
export function normalizeBlocks(raw: unknown, where: string): Block[] {
  if (typeof raw === "string") return [{ text: raw, detail: null, type: "text" }];
  if (!Array.isArray(raw)) throw new OutputError(`${where}: expected an array of blocks`);
  const out: Block[] = new Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i] as Record<string, unknown>;
    if (!isPlainObject(b)) throw new OutputError(`${where}.${i}: expected a block object`);
    const detail = b.detail ?? null;
    if (detail !== null && !isPlainObject(detail))
      throw new OutputError(`${where}.${i}.detail: expected an object or null`);
    if (b.type === "text") {
      if (typeof b.text !== "string") throw new OutputError(`${where}.${i}.text: expected a string`);
      out[i] = { text: b.text, detail: detail as Block["detail"], type: "text" };
    } else if (b.type === "image") {
      if (typeof b.data !== "string") throw new OutputError(`${where}.${i}.data: expected a base64 string`);
      if (typeof b.mimeType !== "string") throw new OutputError(`${where}.${i}.mimeType: expected a string`);
      out[i] = { data: b.data, mimeType: b.mimeType, detail: detail as Block["detail"], type: "image" };
    } else {
      throw new OutputError(`${where}.${i}.type: expected "text" or "image"`);
    }
  }
  return out;
}

/** Serializes a tool's result as a successful RunToolOutput; throws OutputError if it is malformed. */
export function serializeToolResult(result: ToolResult): string {
  if (!isPlainObject(result)) throw new OutputError("result: expected an object with blocks");
  const blocks = normalizeBlocks(result.blocks, "blocks");
  const reward = result.reward ?? null;
  if (reward !== null && (typeof reward !== "number" || !Number.isFinite(reward)))
    throw new OutputError("reward: expected a finite number or null");
  const finished = result.finished ?? false;
  if (typeof finished !== "boolean") throw new OutputError("finished: expected a boolean");
  const metadata = result.metadata ?? null;
  if (metadata !== null && !isPlainObject(metadata))
    throw new OutputError("metadata: expected an object or null");
  return JSON.stringify({ ok: true, output: { blocks, metadata, reward, finished } });
}

/** Serializes a tool-level failure: `{"ok": false, "error": "..."}`. */
export function serializeToolError(error: string): string {
  return JSON.stringify({ ok: false, error });
}

/** The message of anything thrown, for `{ok:false,error}` and setup failures. */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message || e.name;
  if (typeof e === "string") return e;
  try {
    return JSON.stringify(e) ?? String(e);
  } catch {
    return String(e);
  }
}
