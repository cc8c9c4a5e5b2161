// Tool calls, `POST /{env}/call` (spec: ors-sse.txt): the tool run with its time limit, the
// `task_id` event first, the result framed as `chunk`...`end` (or `{"ok": false}` for invalid input
// or a throwing tool; `event: error` for an unknown tool), and reconnection by `task_id` to a running
// or kept run.
import { formatSseEvent } from "../protocol/sse";
import type { AnyTool, ToolResult } from "../sdk/define";
import { frameResult } from "./frames";
import type { OrsHostOptions } from "./options";
import { errorMessage, OutputError, serializeToolError, serializeToolResult } from "./output";
import { CallStream, type OrsReply } from "./reply";
import { quote, readToolCall, seconds } from "./request";
import { assertSameEnv, type HostedEnvironment, RunContext, type Session, UNBOUND } from "./session";
import type { SessionTable } from "./sessions";
import type { RunRegistry, ToolRun } from "./tool-runs";

export class ToolCalls {
  constructor(
    private readonly options: OrsHostOptions,
    private readonly sessions: SessionTable,
    private readonly runs: RunRegistry,
  ) {}

  /** Answers a call whose body was read: a reconnection by `task_id`, or a new run. */
  async call(hosted: HostedEnvironment, rawBody: unknown, sid: string): Promise<OrsReply> {
    const body = readToolCall(rawBody);
    const pingMs = this.options.pingIntervalMs;
    if (body.task_id != null) {
      const s0 = this.sessions.require(sid);
      if (s0.status !== UNBOUND) assertSameEnv(s0, hosted);
      const run = this.runs.get(body.task_id, sid);
      const head = formatSseEvent("task_id", body.task_id);
      if (!run)
        return {
          kind: "sse",
          body:
            head +
            formatSseEvent(
              "error",
              `unknown task_id ${quote(body.task_id)} (results are kept ${seconds(this.options.resultLingerMs)} after completion)`,
            ),
        };
      if (run.done) return sseReply(head, run.frames);
      return { kind: "stream", stream: new CallStream(run, head, pingMs) };
    }
    // The path's environment first, as for every session: a session of another environment is a
    // 404 even when its setup failed (which would be a 500).
    const bound = this.sessions.require(sid);
    if (bound.status !== UNBOUND) assertSameEnv(bound, hosted);
    const s = await this.sessions.ready(sid, hosted);
    assertSameEnv(s, hosted);
    const run = this.runs.start(sid);
    const head = `event: task_id\ndata: ${run.id}\n\n`;
    const tools = this.sessions.tools(s);
    const tool = tools.get(body.name);
    if (!tool) {
      // Spec (ors-sse.txt "HTTP-Level Errors": "Tool name not recognized"): an error of the call,
      // `event: error`, not a tool logic error; `{"ok": false}` is the tool's own refusal.
      const message = `Unknown tool ${quote(body.name)} (tool not found); the tools of this session: ${[...tools.keys()].join(", ")}`;
      this.runs.complete(run, formatSseEvent("error", message), performance.now());
      return sseReply(head, run.frames);
    }
    const parsed = tool.parse(body.input);
    if (!parsed.ok) {
      this.finishRun(run, serializeToolError(parsed.error));
      return sseReply(head, run.frames);
    }
    const done = this.execute(s, run, tool, body.name, parsed.value);
    if (done && !run.done) await Promise.race([done, nextMacrotask()]);
    if (run.done) return sseReply(head, run.frames);
    return { kind: "stream", stream: new CallStream(run, head, pingMs) };
  }

  private finishRun(run: ToolRun, resultJson: string): void {
    this.runs.complete(run, frameResult(resultJson), performance.now());
  }

  /** Runs the tool: null when it completed at once, else the promise of its completion. */
  private execute(
    s: Session,
    run: ToolRun,
    tool: AnyTool,
    name: string,
    input: unknown,
  ): Promise<void> | null {
    let signal: AbortSignal | null = null;
    const limit = this.options.callTimeoutMs;
    if (limit > 0) {
      const ac = new AbortController();
      run.abort = ac;
      const sessionSignal = s.signal;
      if (sessionSignal.aborted) ac.abort(sessionSignal.reason);
      else sessionSignal.addEventListener("abort", () => ac.abort(sessionSignal.reason), { once: true });
      signal = ac.signal;
      run.timer = setTimeout(() => {
        const message = `Tool call ${quote(name)} exceeded the time limit of ${seconds(limit)} (ORS_CALL_TIMEOUT_MS)`;
        this.runs.complete(run, formatSseEvent("error", message), performance.now());
        ac.abort(new Error(message));
      }, limit);
      run.timer.unref?.();
    }
    s.busy++;
    if (!s.running) s.running = new Set();
    s.running.add(run);
    // Without a time limit the signal is the session's, created only if the tool reads it.
    const ctx = new RunContext(s.ctx, signal ?? s);
    let out: ToolResult | PromiseLike<ToolResult>;
    try {
      out = tool.run(input, ctx);
    } catch (e) {
      this.failed(s, run, e);
      return null;
    }
    // A synchronous tool's result completes the run here: no promise, no turn of the event loop.
    if (typeof (out as PromiseLike<ToolResult>)?.then !== "function") {
      this.succeeded(s, run, name, out as ToolResult);
      return null;
    }
    return Promise.resolve(out).then(
      (result) => this.succeeded(s, run, name, result),
      (e) => this.failed(s, run, e),
    );
  }

  private succeeded(s: Session, run: ToolRun, name: string, result: ToolResult): void {
    afterRun(s, run);
    if (run.done) return;
    let jsonText: string;
    try {
      jsonText = serializeToolResult(result);
    } catch (e) {
      const why = e instanceof OutputError ? e.message : errorMessage(e);
      jsonText = serializeToolError(`Tool ${quote(name)} returned an invalid result: ${why}`);
    }
    this.finishRun(run, jsonText);
  }

  private failed(s: Session, run: ToolRun, e: unknown): void {
    afterRun(s, run);
    if (!run.done) this.finishRun(run, serializeToolError(errorMessage(e)));
  }
}

function afterRun(s: Session, run: ToolRun): void {
  s.busy--;
  s.running?.delete(run);
  s.lastSeen = performance.now();
}

/** A complete SSE answer: the `task_id` event, then the run's frames (text, or bytes when large). */
export function sseReply(head: string, frames: string | Buffer): OrsReply {
  return typeof frames === "string"
    ? { kind: "sse", body: head + frames }
    : { kind: "sse", body: head, tail: frames };
}

function nextMacrotask(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
