// The command that plays a probe's episode again (docs/check.md "Can the reward be gamed?"): curl,
// as anyone can run it against the server — a session, the task, the prompt (environments may build
// their world there), each call with its SSE answer printed, then the session deleted. Isomorphic.
import type { ProbeCall } from "./types";

/** A word for a POSIX shell, in single quotes. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The episode as one shell line. The API key is the variable `$ORS_API_KEY` (never the key itself).
 *
 * @example
 * reproduceCommand("http://127.0.0.1:8080", { env: "math", split: "test", index: 3 }, [{ tool: "submit", input: { answer: "" } }], false);
 */
export function reproduceCommand(
  url: string,
  task: { env: string; split: string; index: number },
  calls: readonly ProbeCall[],
  apiKey: boolean,
): string {
  const key = apiKey ? ` -H "X-API-Key: $ORS_API_KEY"` : "";
  const json = ` -H 'Content-Type: application/json'`;
  const sid = ` -H "X-Session-ID: $S"`;
  const env = encodeURIComponent(task.env);
  const lines = [
    `U=${shellQuote(url)}`,
    `S=$(curl -s -X POST "$U/create_session" -H 'Accept: text/event-stream'${key} | sed -n 's/^data: *//p' | head -n 1 | tr -d '\\r')`,
    `curl -s -X POST "$U/create"${sid}${key}${json} -d ${shellQuote(JSON.stringify({ env_name: task.env, split: task.split, index: task.index }))}`,
    `curl -s "$U/${env}/prompt"${sid}${key}`,
    ...calls.map(
      (c) =>
        `curl -sN -X POST "$U/${env}/call"${sid}${key}${json} -d ${shellQuote(JSON.stringify({ name: c.tool, input: c.input }))}`,
    ),
    `curl -s -X POST "$U/delete"${sid}${key}`,
  ];
  return lines.join("; ");
}
