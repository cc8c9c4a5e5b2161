// `GET /api/servers/<name>/<env>/tools?format=openai|anthropic|gemini` (and `task_tools`): the
// server's tool specs, relayed as usual, answered in that provider's shape (docs/runs.md "Tool
// specs"; lib/ors/protocol/tool-formats.ts). Without `format` the relay answers what the server said.
import "server-only";
import { errorBody, isToolFormat, TOOL_FORMATS, type ToolSpec, toolsAs } from "@/lib/ors/protocol";
import type { RelayAnswer, RelayRequest } from "./io";

const TOOLS_PATH = /^\/[^/]+\/(task_)?tools$/;

/**
 * Answers a tools request that asks for a format (serving the request without it first); null for
 * any other request, which the relay serves as it is.
 */
export async function withToolFormat(
  req: RelayRequest,
  orsPath: string,
  serve: (req: RelayRequest) => Promise<RelayAnswer>,
): Promise<RelayAnswer | null> {
  if (req.method !== "GET" || !TOOLS_PATH.test(orsPath)) return null;
  const params = new URLSearchParams(req.search);
  const format = params.get("format");
  if (format === null) return null;
  const json = { "content-type": "application/json", "cache-control": "no-store" };
  if (!isToolFormat(format))
    return {
      status: 400,
      headers: json,
      body: errorBody(`format: expected one of ${TOOL_FORMATS.join(", ")}, got ${JSON.stringify(format)}`),
    };
  params.delete("format");
  const rest = params.toString();
  const answer = await serve({
    method: req.method,
    search: rest ? `?${rest}` : "",
    header: (n) => req.header(n),
    readBody: (limit) => req.readBody(limit),
    get gone() {
      return req.gone;
    },
    onGone: (cb) => req.onGone(cb),
  });
  if (answer.status !== 200 || typeof answer.body !== "string") return answer;
  let tools: ToolSpec[];
  try {
    tools = (JSON.parse(answer.body) as { tools: ToolSpec[] }).tools;
    if (!Array.isArray(tools)) throw new Error("no tools");
  } catch {
    return answer;
  }
  return { status: 200, headers: json, body: JSON.stringify({ format, tools: toolsAs(tools, format) }) };
}
