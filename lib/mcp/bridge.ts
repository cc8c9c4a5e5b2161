// ORS → MCP (docs/mcp.md): one MCP server session that plays the environments of an ORS server,
// one episode at a time, through an ORS client the caller gives (the recording relay's, so every
// episode is recorded, tagged with the MCP client's clientInfo). Built on the official SDK's
// low-level `Server`: the tools change with the episode (`notifications/tools/list_changed`).
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type ServerNotification,
} from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { isAbortError, isOrsClientError, type OrsClient } from "@/lib/ors/client";
import type { JsonObject, RunToolOutput, ToolSpec } from "@/lib/ors/protocol";
import { CLIENT_HEADER, encodeClientTag } from "@/lib/relay/annotations";
import {
  type ControlTool,
  controlOf,
  endEpisodeArgs,
  listedTools,
  listTasksArgs,
  type McpToolResult,
  parseArgs,
  startEpisodeArgs,
  stepResult,
  taskSummary,
  toolError,
} from "./bridge-tools";
import { orsBlocksToMcp } from "./content";

export interface OrsBridgeOptions {
  /** The ORS client of this MCP session, sending `headers` with every request (the client tag). */
  client(headers: Record<string, string>): OrsClient;
  /** The ORS server as people know it (`local`, `py`, a URL): said in the texts. */
  server: string;
  /** Serve this environment only (`--env`). */
  env?: string | null;
  /** The split `list_tasks` and `start_episode` use when none is given (`--split`). */
  split?: string | null;
  /** The version in `serverInfo` (default BRIDGE_VERSION; the CLI gives the package's). */
  version?: string;
  /** Where failures that reach no client are reported (default: stderr). */
  log?: (line: string) => void;
}

/** The episode an MCP session is playing. */
interface Episode {
  env: string;
  sid: string;
  label: string;
  tools: ToolSpec[];
  finished: boolean;
  total: number;
  steps: number;
}

type Extra = {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification: (n: ServerNotification) => Promise<void>;
};

/** The version of the bridge's tools (their names and fields), when no package version is given. */
export const BRIDGE_VERSION = "1.0.0";

/** A call the bridge refuses itself (which environment or split is meant), said to the model. */
class Refusal extends Error {}

/** What went wrong, as a model reads it (an ORS client error says its path and the server's detail). */
function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * One MCP session of the bridge: its `Server` (connect it to a transport) and its episode. Closing
 * the server (the client went away) deletes the ORS session of a running episode.
 */
export class OrsMcpSession {
  readonly server: Server;
  private ors: OrsClient | null = null;
  private envs: Promise<string[]> | null = null;
  private readonly shared = new Map<string, Promise<ToolSpec[]>>();
  private episode: Episode | null = null;
  /** Episode starts and ends, one after the other. */
  private queue: Promise<unknown> = Promise.resolve();
  private closing: Promise<void> | null = null;

  constructor(private readonly o: OrsBridgeOptions) {
    this.server = new Server(
      {
        name: "ors-playground",
        title: `ORS environments of ${o.server}`,
        version: o.version ?? BRIDGE_VERSION,
      },
      {
        capabilities: { tools: { listChanged: true } },
        instructions:
          `Plays reinforcement-learning environments of the ORS server ${o.server}. List tasks with list_tasks, ` +
          "start one with start_episode (its answer is the task's prompt), then use the environment's tools " +
          "until a result says finished; end_episode ends it.",
      },
    );
    this.server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await this.listTools() }));
    this.server.setRequestHandler(
      CallToolRequestSchema,
      async (req, extra) =>
        (await this.call(req.params.name, req.params.arguments ?? {}, extra)) as CallToolResult,
    );
    this.server.onclose = () => void this.close();
  }

  /** The ORS client, built once the client said who it is (its clientInfo tags the episodes). */
  private client(): OrsClient {
    if (this.ors) return this.ors;
    const info = this.server.getClientVersion();
    const headers: Record<string, string> = info?.name
      ? {
          [CLIENT_HEADER]: encodeClientTag({
            name: info.name.slice(0, 200),
            version: (info.version ?? "").slice(0, 100),
          }),
        }
      : {};
    this.ors = this.o.client(headers);
    return this.ors;
  }

  private async envNames(): Promise<string[]> {
    this.envs ??= this.client().listEnvironments();
    return this.envs.catch((e) => {
      this.envs = null;
      throw e;
    });
  }

  /** The environment a call means: the one given, the bridge's, or the server's only one. */
  private async envOf(given: string | undefined): Promise<string> {
    if (this.o.env) {
      if (given !== undefined && given !== this.o.env)
        throw new Refusal(
          `this bridge serves the environment ${this.o.env} only, not ${JSON.stringify(given)}`,
        );
      return this.o.env;
    }
    if (given !== undefined) return given;
    const names = await this.envNames();
    if (names.length === 1) return names[0]!;
    throw new Refusal(
      `give env: the server ${this.o.server} has ${names.length} environments: ${names.join(", ")}`,
    );
  }

  /** The split a call means: the one given, the bridge's, or the environment's only one. */
  private async splitOf(env: string, given: string | undefined, signal?: AbortSignal): Promise<string> {
    if (given !== undefined) return given;
    if (this.o.split) return this.o.split;
    const splits = await this.client().splits(env, { signal });
    if (splits.length === 1) return splits[0]!.name;
    throw new Refusal(`give split: ${env} has the splits ${splits.map((s) => s.name).join(", ")}`);
  }

  private sharedTools(env: string): Promise<ToolSpec[]> {
    let p = this.shared.get(env);
    if (!p) {
      p = this.client()
        .tools(env)
        .then((r) => r.tools);
      p.catch(() => this.shared.delete(env));
      this.shared.set(env, p);
    }
    return p;
  }

  /** The environment's tools shown now: the episode's, else those of the one environment served. */
  private async envTools(): Promise<ToolSpec[]> {
    if (this.episode) return this.episode.tools;
    const env = this.o.env ?? (await this.envNames().catch(() => [] as string[])).at(0);
    if (!env || (!this.o.env && (await this.envNames()).length !== 1)) return [];
    return this.sharedTools(env).catch(() => []);
  }

  private async listTools() {
    return listedTools(await this.envTools());
  }

  /** The tools served now, to compare with after a change. */
  private async shown(): Promise<string> {
    return JSON.stringify(await this.listTools());
  }

  /** Tells the client its tools changed (on the stream of the call that changed them). */
  private async announce(before: string, extra: Extra): Promise<void> {
    if ((await this.shown()) === before) return;
    await extra.sendNotification({ method: "notifications/tools/list_changed" }).catch(() => {});
  }

  private async call(name: string, args: JsonObject, extra: Extra): Promise<McpToolResult> {
    const envTools = await this.envTools();
    const control = controlOf(name, new Set(envTools.map((t) => t.name)));
    try {
      if (control) return await this.control(control, name, args, extra);
      const tool = envTools.find((t) => t.name === name);
      if (!tool)
        return toolError(
          this.episode
            ? `Unknown tool ${JSON.stringify(name)}: the episode's tools are ${envTools.map((t) => t.name).join(", ")}`
            : `No episode is running: call start_episode first (${JSON.stringify(name)} is not a tool now)`,
        );
      return await this.step(name, args, extra);
    } catch (err) {
      if (isAbortError(err) && extra.signal.aborted) throw err;
      return toolError(describe(err));
    }
  }

  private control(tool: ControlTool, called: string, args: JsonObject, extra: Extra): Promise<McpToolResult> {
    const parsed = <T>(schema: z.ZodType<T>) => parseArgs(schema, called, args);
    switch (tool) {
      case "list_tasks": {
        const a = parsed(listTasksArgs);
        return a.ok ? this.listTasks(a.value, extra.signal) : Promise.resolve(toolError(a.error));
      }
      case "start_episode": {
        const a = parsed(startEpisodeArgs);
        return a.ok ? this.serially(() => this.start(a.value, extra)) : Promise.resolve(toolError(a.error));
      }
      case "end_episode": {
        const a = parsed(endEpisodeArgs);
        return a.ok ? this.serially(() => this.end(extra)) : Promise.resolve(toolError(a.error));
      }
    }
  }

  private serially<T>(f: () => Promise<T>): Promise<T> {
    const next = this.queue.then(f, f);
    this.queue = next.catch(() => {});
    return next;
  }

  private async listTasks(a: z.infer<typeof listTasksArgs>, signal: AbortSignal): Promise<McpToolResult> {
    const env = await this.envOf(a.env);
    const split = await this.splitOf(env, a.split, signal);
    const ors = this.client();
    const total = (await ors.numTasks(env, split, { signal })).num_tasks;
    const offset = a.offset ?? 0;
    const stop = Math.min(total, offset + (a.limit ?? 20));
    const tasks = offset < stop ? (await ors.taskRange(env, split, offset, stop, { signal })).tasks : [];
    const items = tasks.map((t, i) => ({ index: offset + i, summary: taskSummary(t) }));
    const head =
      items.length > 0
        ? `${env}/${split}: tasks ${offset}–${offset + items.length - 1} of ${total}`
        : `${env}/${split}: no tasks from ${offset} (the split has ${total})`;
    return {
      content: [{ type: "text", text: [head, ...items.map((t) => `${t.index}: ${t.summary}`)].join("\n") }],
      structuredContent: { env, split, total, tasks: items },
    };
  }

  private async start(a: z.infer<typeof startEpisodeArgs>, extra: Extra): Promise<McpToolResult> {
    const env = await this.envOf(a.env);
    const before = await this.shown();
    try {
      return await this.open(env, a, extra);
    } finally {
      // The tools changed with the new episode, or with the end of the one before when it failed.
      await this.announce(before, extra);
    }
  }

  /** Ends a running episode, then creates the new one's session and reads its prompt and tools. */
  private async open(env: string, a: z.infer<typeof startEpisodeArgs>, extra: Extra): Promise<McpToolResult> {
    const { signal } = extra;
    const ended = this.episode ? await this.finishEpisode() : null;
    const ors = this.client();
    let task: JsonObject;
    let label: string;
    if (a.task_spec !== undefined) {
      task = { env_name: env, task_spec: a.task_spec };
      label = `${env}, task ${taskSummary(a.task_spec, 80)}`;
    } else {
      const split = await this.splitOf(env, a.split, signal);
      task = { env_name: env, split, index: a.index! };
      label = `${env}/${split} #${a.index}`;
    }
    const { sid } = await ors.createSession({ signal });
    let prompt: Awaited<ReturnType<OrsClient["prompt"]>>;
    let tools: ToolSpec[];
    try {
      await ors.create(sid, task, { signal });
      prompt = await ors.prompt(env, sid, { signal });
      tools = await ors
        .taskTools(env, sid, { signal })
        .catch(async (e) => {
          // A server without /task_tools: the shared tools are all there is.
          if (isOrsClientError(e) && (e.status === 404 || e.status === 405))
            return ors.tools(env, { signal });
          throw e;
        })
        .then((r) => r.tools);
    } catch (err) {
      await ors.delete(sid).catch(() => {});
      throw err;
    }
    this.episode = { env, sid, label, tools, finished: false, total: 0, steps: 0 };
    const names = tools.map((t) => t.name).join(", ");
    const note = ended ? `(The previous episode, ${ended}, was ended first.) ` : "";
    return {
      content: [
        ...orsBlocksToMcp(prompt),
        {
          type: "text",
          text: `${note}Episode started: ${label} (session ${sid}). Its tools: ${names}. Call end_episode to stop early.`,
        },
      ],
      structuredContent: { env, sid, tools: tools.map((t) => t.name) },
    };
  }

  /** Deletes the running episode's ORS session; says which episode it was. */
  private async finishEpisode(): Promise<string | null> {
    const e = this.episode;
    if (!e) return null;
    this.episode = null;
    await this.client()
      .delete(e.sid)
      .catch((err) => {
        // Gone already (expired, deleted elsewhere): nothing left to end.
        if (!(isOrsClientError(err) && (err.status === 404 || err.status === 410)))
          (this.o.log ?? console.error)(`[mcp] could not delete session ${e.sid}: ${describe(err)}`);
      });
    return e.label;
  }

  private async end(extra: Extra): Promise<McpToolResult> {
    const e = this.episode;
    if (!e) return toolError("No episode is running (start one with start_episode).");
    const before = await this.shown();
    await this.finishEpisode();
    await this.announce(before, extra);
    return {
      content: [
        {
          type: "text",
          text: `Episode ended: ${e.label}, ${e.steps} call${e.steps === 1 ? "" : "s"}, total reward ${e.total}${e.finished ? " (finished)" : ""}.`,
        },
      ],
      structuredContent: { finished: e.finished, total_reward: e.total, steps: e.steps },
    };
  }

  /** A call of an environment tool: the ORS call, its pings as MCP progress, its result. */
  private async step(name: string, args: JsonObject, extra: Extra): Promise<McpToolResult> {
    const e = this.episode!;
    if (e.finished)
      return toolError(
        `The episode is over (finished, total reward ${e.total}): call start_episode for another one, or end_episode.`,
      );
    const token = extra._meta?.progressToken;
    let progress = 0;
    const started = Date.now();
    const out: RunToolOutput = await this.client().callTool(
      e.env,
      e.sid,
      { name, input: args },
      {
        signal: extra.signal,
        onEvent: (ev) => {
          if (token === undefined || ev.type !== "ping") return;
          progress++;
          void extra
            .sendNotification({
              method: "notifications/progress",
              params: {
                progressToken: token,
                progress,
                message: `${name} is still running (${Math.round((Date.now() - started) / 1000)} s)`,
              },
            })
            .catch(() => {});
        },
      },
    );
    if (this.episode !== e) return toolError(`The episode ${e.label} ended while ${name} ran.`);
    e.steps++;
    if (out.ok) {
      e.total += out.output.reward ?? 0;
      e.finished = out.output.finished;
    }
    return stepResult(out, e.total);
  }

  /** Ends the running episode (the MCP session is over); every call resolves once that is done. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.serially(() => this.finishEpisode()).catch(() => {});
      await this.server.close().catch(() => {});
    })();
    return this.closing;
  }
}
