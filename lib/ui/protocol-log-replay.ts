// Sending a logged `/call` again from the protocol log: its tool and input, and the annotation that
// marks the new step as a replay of it (`x-playground-step`, base64url JSON `{replayOf, edited}`;
// lib/relay/annotations.ts). Loaded with the protocol log panel, not with the page.

import type { JsonObject } from "@/lib/ors/protocol";
import { encodeStepAnnotation } from "@/lib/relay/annotations";
import type { LogEntry, LoggedExchange } from "./protocol-log";

/** The `x-playground-step` value of a replay of logged call `seq` (`edited`: its input was changed). */
export function replayAnnotation(seq: number, edited: boolean): string {
  return encodeStepAnnotation({ replayOf: seq, edited });
}

/** Whether an exchange is a tool call (`POST /{env}/call`, or the bare `/call`). */
export function isCallExchange(e: Pick<LogEntry, "method" | "path">): boolean {
  return e.method.toUpperCase() === "POST" && /(^|\/)call$/.test(e.path.split("?")[0] ?? "");
}

/**
 * The tool and input of a logged `/call`, or why it cannot be sent again (its body was cut, or is
 * not a call's body). A `task_id` in it (a re-post) is left out: a replay is a new call.
 */
export function replayableCall(e: LoggedExchange): { tool: string; input: JsonObject } | { problem: string } {
  if (!isCallExchange(e)) return { problem: "Only tool calls (/call) can be sent again." };
  if (e.request.truncated)
    return { problem: "The request body was cut in the log, so the call cannot be sent again as it was." };
  let body: unknown;
  try {
    body = JSON.parse(e.request.body);
  } catch {
    return { problem: "The request body is not JSON." };
  }
  const b = body as { name?: unknown; input?: unknown };
  if (!b || typeof b.name !== "string" || !b.input || typeof b.input !== "object" || Array.isArray(b.input))
    return { problem: "The request body is not a call ({name, input})." };
  return { tool: b.name, input: b.input as JsonObject };
}
