// The stores' rows and how they read as the trajectory format: SQLite (./sqlite/store.ts) and PostgreSQL
// (./postgres/store.ts) keep the same columns, so one set of mappers serves both; plus what both share
// (ids, retention settings) and SQLite's list filters as SQL (PostgreSQL writes its own dialect).
import "server-only";
import { randomBytes } from "node:crypto";
import { type Env, settingsOrDefault } from "@/lib/config";
import type { Block, JsonObject, ToolSpec } from "@/lib/ors/protocol";
import {
  type AgentEnd,
  type ClientTag,
  type EndReason,
  type NewExchange,
  type ProtocolExchange,
  type RunTag,
  type StepAgent,
  type StepEvent,
  type StepOrigin,
  TRAJECTORY_FORMAT,
  type Trajectory,
  type TrajectoryFilter,
  type TrajectoryOrigin,
  type TrajectoryStep,
  type TrajectorySummary,
  type TrajectoryTask,
  taskLabel,
} from "@/lib/trajectory/schema";
import type { NewTrajectory, RetentionOptions } from "./types";

/** The steps table's columns in the order `stepRowValues` gives them (both stores write them so). */
export const STEP_COLUMNS = [
  "trajectory_id",
  "idx",
  "tool",
  "input_json",
  "task_id",
  "started_at",
  "ended_at",
  "latency_ms",
  "ok",
  "error",
  "blocks_json",
  "reward",
  "finished",
  "metadata_json",
  "events_json",
  "replay_json",
  "after_end",
  "truncated_json",
  "agent_json",
  "instance_id",
  "origin_json",
] as const;

/** A step as the values of its row, in `STEP_COLUMNS`' order. `instance`: whose relay carries it. */
export function stepRowValues(id: string, step: TrajectoryStep, instance: string | null): unknown[] {
  return [
    id,
    step.index,
    step.tool,
    JSON.stringify(step.input),
    step.task_id,
    step.started_at,
    step.ended_at,
    step.latency_ms,
    step.ok == null ? null : step.ok ? 1 : 0,
    step.error,
    JSON.stringify(step.blocks),
    step.reward,
    step.finished ? 1 : 0,
    step.metadata ? JSON.stringify(step.metadata) : null,
    JSON.stringify(step.events),
    step.replay ? JSON.stringify(step.replay) : null,
    step.after_end ? 1 : 0,
    step.truncated ? JSON.stringify(step.truncated) : null,
    step.agent ? JSON.stringify(step.agent) : null,
    instance,
    step.origin ? JSON.stringify(step.origin) : null,
  ];
}

/**
 * An INSERT of one row given as column → value, its parameters numbered (`$1`…, PostgreSQL) or
 * not (`?`, SQLite); `tail` follows the VALUES (an ON CONFLICT clause).
 */
export function insertOf(
  table: string,
  row: Record<string, unknown>,
  numbered: boolean,
  tail = "",
): { sql: string; values: unknown[] } {
  const columns = Object.keys(row);
  const params = columns.map((_, i) => (numbered ? `$${i + 1}` : "?"));
  return {
    sql: `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${params.join(", ")}) ${tail}`.trimEnd(),
    values: Object.values(row),
  };
}

/** A trajectory just started (no steps yet) as its row. `tools`: its tool set's hash. */
export function newTrajectoryRow(
  id: string,
  t: NewTrajectory,
  instance: string,
  tools: string | null,
): Record<string, unknown> {
  return {
    id,
    server: t.server,
    env: t.env,
    sid: t.sid,
    task_json: t.task ? JSON.stringify(t.task) : null,
    task_label: taskLabel(t.task),
    started_at: t.startedAt,
    last_activity_at: t.startedAt,
    origin_json: t.origin ? JSON.stringify(t.origin) : null,
    stored_at: Date.now(),
    instance_id: instance,
    run_id: t.run?.id ?? null,
    run_task: t.run?.task_index ?? null,
    run_repeat: t.run?.repeat ?? null,
    tools_hash: tools,
    client_json: t.client ? JSON.stringify(t.client) : null,
  };
}

/**
 * An imported trajectory as its row (its steps and labels are written apart): one exported while
 * still running is stored ended, as an error. `tools`: its tool set's hash.
 */
export function importedTrajectoryRow(t: Trajectory, tools: string | null): Record<string, unknown> {
  return {
    id: t.id,
    server: t.server,
    env: t.env,
    sid: t.sid,
    task_json: t.task ? JSON.stringify(t.task) : null,
    task_label: taskLabel(t.task),
    prompt_json: t.prompt ? JSON.stringify(t.prompt) : null,
    started_at: t.started_at,
    ended_at: t.ended_at ?? t.steps.filter((s) => !s.after_end).at(-1)?.ended_at ?? t.started_at,
    last_activity_at: t.ended_at ?? t.started_at,
    end_reason: t.end_reason ?? "error",
    error: t.end_reason ? t.error : (t.error ?? "the episode was still running when it was exported"),
    origin_json: JSON.stringify(t.origin ?? { kind: "import", from: t.id }),
    stored_at: Date.now(),
    reprompts_json: t.reprompts?.length ? JSON.stringify(t.reprompts) : null,
    golden: t.golden ? 1 : 0,
    run_id: t.run?.id ?? null,
    run_task: t.run?.task_index ?? null,
    run_repeat: t.run?.repeat ?? null,
    tools_hash: tools,
    agent_end_json: t.agent_end ? JSON.stringify(t.agent_end) : null,
    client_json: t.client ? JSON.stringify(t.client) : null,
  };
}

const RETENTION_SETTINGS = {
  maxCount: "PLAYGROUND_MAX_TRAJECTORIES",
  maxAgeDays: "PLAYGROUND_MAX_TRAJECTORY_AGE_DAYS",
} as const;

/** Retention when none is given: the settings' defaults (lib/config.ts). */
export const DEFAULT_RETENTION: RetentionOptions = settingsOrDefault({}, RETENTION_SETTINGS);

export function retentionFromEnv(env: Env): RetentionOptions {
  return settingsOrDefault(env, RETENTION_SETTINGS);
}

export function newTrajectoryId(): string {
  return randomBytes(9).toString("base64url");
}

export interface TrajRow {
  id: string;
  server: string;
  env: string | null;
  sid: string | null;
  task_json: string | null;
  task_label: string;
  prompt_json: string | null;
  num_steps: number;
  total_reward: number;
  started_at: number;
  ended_at: number | null;
  last_activity_at: number;
  end_reason: EndReason | null;
  error: string | null;
  origin_json: string | null;
  reprompts_json: string | null;
  golden: number;
  run_id: string | null;
  run_task: number | null;
  run_repeat: number | null;
  tools_hash: string | null;
  agent_end_json: string | null;
  /** The client that played it (ClientTag), when it said. */
  client_json: string | null;
  /** The process that started it (StoreInstance). */
  instance_id: string | null;
}

export interface StepRow {
  trajectory_id: string;
  idx: number;
  tool: string;
  input_json: string;
  task_id: string | null;
  started_at: number;
  ended_at: number | null;
  latency_ms: number | null;
  ok: number | null;
  error: string | null;
  blocks_json: string;
  reward: number | null;
  finished: number;
  metadata_json: string | null;
  events_json: string;
  replay_json: string | null;
  after_end: number;
  truncated_json: string | null;
  agent_json: string | null;
  /** The process whose relay carried the call (StoreInstance). */
  instance_id: string | null;
  /** Where the step came from (StepOrigin), when it replays a logged call. */
  origin_json: string | null;
}

export const parse = <T>(s: string | null): T | null => (s == null ? null : (JSON.parse(s) as T));

/** The run tag of a row, when it has one. */
export function runTagOf(r: TrajRow): RunTag | null {
  return r.run_id != null && r.run_task != null && r.run_repeat != null
    ? { id: r.run_id, task_index: r.run_task, repeat: r.run_repeat }
    : null;
}

/** The client tag of a row, when it has one (columns added by a migration read as absent before it). */
export function clientTagOf(r: TrajRow): ClientTag | null {
  return parse<ClientTag>(r.client_json ?? null);
}

export function toSummary(r: TrajRow): TrajectorySummary {
  const run = runTagOf(r);
  const client = clientTagOf(r);
  return {
    id: r.id,
    server: r.server,
    env: r.env,
    sid: r.sid,
    task: parse<TrajectoryTask>(r.task_json),
    task_label: r.task_label,
    num_steps: r.num_steps,
    total_reward: r.total_reward,
    started_at: r.started_at,
    ended_at: r.ended_at,
    last_activity_at: r.last_activity_at,
    end_reason: r.end_reason,
    error: r.error,
    origin: parse<TrajectoryOrigin>(r.origin_json),
    ...(r.golden ? { golden: true } : {}),
    ...(run ? { run } : {}),
    ...(client ? { client } : {}),
  };
}

export function toStep(r: StepRow): TrajectoryStep {
  return {
    index: r.idx,
    tool: r.tool,
    input: JSON.parse(r.input_json) as JsonObject,
    task_id: r.task_id,
    started_at: r.started_at,
    ended_at: r.ended_at,
    latency_ms: r.latency_ms,
    ok: r.ok == null ? null : r.ok === 1,
    error: r.error,
    blocks: JSON.parse(r.blocks_json) as Block[],
    reward: r.reward,
    finished: r.finished === 1,
    metadata: parse<JsonObject>(r.metadata_json),
    events: JSON.parse(r.events_json) as StepEvent[],
    replay: parse(r.replay_json),
    ...(r.after_end ? { after_end: true } : {}),
    ...(r.truncated_json ? { truncated: JSON.parse(r.truncated_json) as TrajectoryStep["truncated"] } : {}),
    ...(r.agent_json ? { agent: JSON.parse(r.agent_json) as StepAgent } : {}),
    ...(r.origin_json ? { origin: JSON.parse(r.origin_json) as StepOrigin } : {}),
  };
}

export function agentEndOf(r: TrajRow): AgentEnd | null {
  return parse<AgentEnd>(r.agent_end_json);
}

/** A trajectory in the export format from its row, its steps and its tool specs (stored apart). */
export function toTrajectory(r: TrajRow, steps: TrajectoryStep[], tools: ToolSpec[] | null): Trajectory {
  const t: Trajectory = {
    format: TRAJECTORY_FORMAT,
    id: r.id,
    server: r.server,
    env: r.env,
    sid: r.sid,
    task: parse<TrajectoryTask>(r.task_json),
    prompt: parse<Block[]>(r.prompt_json),
    steps,
    total_reward: r.total_reward,
    started_at: r.started_at,
    ended_at: r.ended_at,
    end_reason: r.end_reason,
    error: r.error,
  };
  const origin = parse<TrajectoryOrigin>(r.origin_json);
  if (origin) t.origin = origin;
  const reprompts = parse<NonNullable<Trajectory["reprompts"]>>(r.reprompts_json);
  if (reprompts?.length) t.reprompts = reprompts;
  if (r.golden) t.golden = true;
  const run = runTagOf(r);
  if (run) t.run = run;
  const client = clientTagOf(r);
  if (client) t.client = client;
  if (tools) t.tools = tools;
  const agentEnd = agentEndOf(r);
  if (agentEnd) t.agent_end = agentEnd;
  return t;
}

/** The columns the list may be sorted by (both stores). */
export const SORT_COLUMNS: Record<string, string> = {
  started_at: "started_at",
  ended_at: "ended_at",
  total_reward: "total_reward",
  num_steps: "num_steps",
  env: "env",
  server: "server",
};

export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * The WHERE clause of the list and export filters in either dialect: `bind` writes a parameter
 * (keeping its value) and `like` is the LIKE that ignores ASCII case (SQLite's LIKE, PostgreSQL's
 * ILIKE), so the search reads the same on both stores.
 */
export function filterWhere(
  f: TrajectoryFilter,
  bind: (v: unknown) => string,
  like: "LIKE" | "ILIKE",
): string {
  const clauses: string[] = [];
  if (f.server) clauses.push(`server = ${bind(f.server)}`);
  if (f.env) clauses.push(`env = ${bind(f.env)}`);
  if (f.run) clauses.push(`run_id = ${bind(f.run)}`);
  if (f.task)
    clauses.push(
      `(task_label = ${bind(f.task)} OR task_label ${like} ${bind(`%${escapeLike(f.task)}%`)} ESCAPE '\\')`,
    );
  if (f.end_reason === "running") clauses.push("end_reason IS NULL");
  else if (f.end_reason) clauses.push(`end_reason = ${bind(f.end_reason)}`);
  if (f.golden !== undefined) clauses.push(f.golden ? "golden = 1" : "golden = 0");
  if (f.min_reward != null) clauses.push(`total_reward >= ${bind(f.min_reward)}`);
  if (f.max_reward != null) clauses.push(`total_reward <= ${bind(f.max_reward)}`);
  if (f.q) {
    const q = bind(`%${escapeLike(f.q)}%`);
    const match = (col: string) => `${col} ${like} ${q} ESCAPE '\\'`;
    clauses.push(
      `(${["id", "server", "env", "sid", "task_label", "error", "prompt_json"].map(match).join(" OR ")}
        OR EXISTS (SELECT 1 FROM steps s WHERE s.trajectory_id = trajectories.id AND
          (${["s.tool", "s.input_json", "s.blocks_json"].map(match).join(" OR ")})))`,
    );
  }
  return clauses.length ? `WHERE ${clauses.join(" AND ")}` : "";
}

/** Parameters bound as a statement is written: `bind(v)` keeps `v` and returns its placeholder. */
export interface Binder<P> {
  bind: (v: unknown) => string;
  params: P;
}

/** SQLite's named parameters (`@p0`, `@p1`…). */
export function namedParams(): Binder<Record<string, unknown>> {
  const params: Record<string, unknown> = {};
  let n = 0;
  const bind = (v: unknown) => {
    const name = `p${n++}`;
    params[name] = v;
    return `@${name}`;
  };
  return { bind, params };
}

/** PostgreSQL's numbered parameters (`$1`, `$2`…). */
export function numberedParams(): Binder<unknown[]> {
  const params: unknown[] = [];
  const bind = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  return { bind, params };
}

/** The WHERE clause of the list and export filters in SQLite, with its named parameters. */
export function whereOf(f: TrajectoryFilter): { sql: string; params: Record<string, unknown> } {
  const { bind, params } = namedParams();
  return { sql: filterWhere(f, bind, "LIKE"), params };
}

export function orderByOf(f: TrajectoryFilter): string {
  const col = SORT_COLUMNS[f.sort ?? "started_at"] ?? "started_at";
  const dir = (f.order ?? "desc") === "asc" ? "ASC" : "DESC";
  return `ORDER BY ${col} ${dir}, started_at ${dir}, id ${dir}`;
}

// ---- The protocol log (./types.ts `addExchange`, `exchanges`) ----

export interface ExchangeRow {
  seq: number;
  at: number;
  ms: number;
  method: string;
  path: string;
  status: number;
  request_headers_json: string;
  request_body: string;
  request_size: number;
  request_truncated: number;
  response_type: string;
  response_body: string;
  response_size: number;
  response_truncated: number;
}

export function toExchange(r: ExchangeRow): ProtocolExchange {
  return {
    seq: Number(r.seq),
    at: Number(r.at),
    ms: Number(r.ms),
    method: r.method,
    path: r.path,
    status: Number(r.status),
    request: {
      headers: JSON.parse(r.request_headers_json) as Record<string, string>,
      body: r.request_body,
      size: Number(r.request_size),
      ...(r.request_truncated ? { truncated: true as const } : {}),
    },
    response: {
      contentType: r.response_type,
      body: r.response_body,
      size: Number(r.response_size),
      ...(r.response_truncated ? { truncated: true as const } : {}),
    },
  };
}

/** What an exchange counts towards its trajectory's byte cap: its bodies and headers, in characters. */
export function exchangeChars(x: NewExchange): number {
  let n = x.request.body.length + x.response.body.length + x.path.length + x.response.contentType.length;
  for (const k in x.request.headers) n += k.length + x.request.headers[k]!.length;
  return n;
}

/** The columns of an exchange, in the order of EXCHANGE_COLUMNS (after the trajectory and seq). */
export function exchangeValues(x: NewExchange): unknown[] {
  return [
    x.at,
    x.ms,
    x.method,
    x.path,
    x.status,
    JSON.stringify(x.request.headers),
    x.request.body,
    x.request.size,
    x.request.truncated ? 1 : 0,
    x.response.contentType,
    x.response.body,
    x.response.size,
    x.response.truncated ? 1 : 0,
  ];
}

export const EXCHANGE_COLUMNS = `at, ms, method, path, status, request_headers_json, request_body, request_size,
  request_truncated, response_type, response_body, response_size, response_truncated`;
