// The playground's configuration from environment variables, read and validated in one place (zod):
// a bad value is an error naming the variable and what it expects (docs/configuration.md lists them).
// The composition roots (lib/playground.ts, the CLI, the app server) pass an `env` record in.
import "server-only";
import path from "node:path";
import { z } from "zod";
import { DEFAULT_MAX_STEP_BYTES, MIN_MAX_STEP_BYTES } from "@/lib/trajectory/step";

/** Environment variables as a record: `process.env`, or a test's own. */
export type Env = Readonly<Record<string, string | undefined>>;

/** The process's environment: the one place `lib/` reads `process.env` (read at each call, so tests may set it). */
export function processEnv(): Env {
  return process.env;
}

/** A variable set to a value it does not accept. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

const MIB = 1024 * 1024;

const number = z
  .string()
  .trim()
  .transform((s, ctx) => {
    const n = Number(s);
    if (s === "" || !Number.isFinite(n)) {
      ctx.addIssue({ code: "custom", message: "not a number" });
      return z.NEVER;
    }
    return n;
  });
const positive = number.pipe(z.number().positive());
const wholeAtLeast0 = number.pipe(z.number().int().nonnegative());
const atLeast0 = number.pipe(z.number().nonnegative());

interface Setting<T> {
  schema: z.ZodType<T, string>;
  /** What it expects, said in the error of a bad value. */
  expects: string;
  fallback: T;
}

function setting<T>(schema: z.ZodType<T, string>, expects: string, fallback: T): Setting<T> {
  return { schema, expects, fallback };
}

/**
 * The playground's own settings: each variable's name (a contract: scripts outside the repo set
 * them), what it accepts, and its default when unset or empty.
 */
export const SETTINGS = {
  /** Where the SQLite store, added servers and spawned servers' files live. */
  PLAYGROUND_DATA_DIR: setting(z.string(), "a folder", ".data"),
  /** How long the relay waits for a server's answer to start (and a stream may stay silent). */
  PLAYGROUND_RELAY_TIMEOUT_MS: setting(
    number.pipe(z.number().int().positive()),
    "a whole number of milliseconds above 0",
    60_000,
  ),
  /** One idle limit for episodes on every server, in seconds (unset: each server's own). */
  PLAYGROUND_IDLE_TIMEOUT_S: setting<number | null>(
    positive.transform((s) => s * 1000),
    "a number of seconds above 0",
    null,
  ),
  /** The stored size of one step at most, in bytes of JSON (at least 16 KiB is kept). */
  PLAYGROUND_MAX_STEP_BYTES: setting(
    positive.transform((n) => Math.max(MIN_MAX_STEP_BYTES, Math.floor(n))),
    "a number of bytes above 0",
    DEFAULT_MAX_STEP_BYTES,
  ),
  /** Exchanges kept in each episode's protocol log (0 keeps none). */
  PLAYGROUND_MAX_EXCHANGES: setting(wholeAtLeast0, "a whole number, 0 or more", 1000),
  /** Characters kept in each episode's protocol log, bodies and headers together (0 keeps none). */
  PLAYGROUND_MAX_EXCHANGE_CHARS: setting(wholeAtLeast0, "a whole number, 0 or more", 8 * MIB),
  /** Trajectories kept at most (older ones are deleted; golden and running ones stay). */
  PLAYGROUND_MAX_TRAJECTORIES: setting(atLeast0, "a number, 0 or more", 5000),
  /** Days a trajectory is kept at most. */
  PLAYGROUND_MAX_TRAJECTORY_AGE_DAYS: setting(atLeast0, "a number of days, 0 or more", 30),
  /** How long the episode page keeps a session alive without anyone using its tab, in milliseconds. */
  PLAYGROUND_KEEPALIVE_IDLE_MS: setting(positive, "a number of milliseconds above 0", 15 * 60_000),
  /** With PostgreSQL: whether this process plays runs' episodes from the queue (`0`: it does not). */
  PLAYGROUND_RUN_WORKER: setting(z.enum(["0", "1"]), "0 or 1", "1"),
  /** With PostgreSQL: how long a worker's lease lasts before the others take its episodes over. */
  PLAYGROUND_RUN_LEASE_MS: setting(
    number.pipe(z.number().int().min(1000)),
    "a whole number of milliseconds, 1000 or more",
    30_000,
  ),
  /** With PostgreSQL: how many episodes one worker plays at once, across runs. */
  PLAYGROUND_RUN_WORKER_SLOTS: setting(
    number.pipe(z.number().int().min(1).max(1024)),
    "a whole number from 1 to 1024",
    32,
  ),
} as const;

export type SettingName = keyof typeof SETTINGS;
type SettingValue<K extends SettingName> = (typeof SETTINGS)[K]["fallback"];

function parseSetting<K extends SettingName>(
  env: Env,
  name: K,
): { ok: true; value: SettingValue<K> } | { ok: false; error: string } {
  const spec = SETTINGS[name] as Setting<SettingValue<K>>;
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return { ok: true, value: spec.fallback };
  const r = spec.schema.safeParse(raw);
  if (r.success) return { ok: true, value: r.data };
  return { ok: false, error: `${name}: expected ${spec.expects}, got ${JSON.stringify(raw.slice(0, 100))}` };
}

/** One setting, checked: its value, its default when unset; a ConfigError when set to a bad value. */
export function readSetting<K extends SettingName>(env: Env, name: K): SettingValue<K> {
  const r = parseSetting(env, name);
  if (!r.ok) throw new ConfigError(r.error);
  return r.value;
}

/** One setting, forgiving: a bad value counts as unset (for parts built outside the composition root). */
export function settingOrDefault<K extends SettingName>(env: Env, name: K): SettingValue<K> {
  const r = parseSetting(env, name);
  return r.ok ? r.value : (SETTINGS[name].fallback as SettingValue<K>);
}

/** Settings that go together, each key's from the variable `names` gives it (settingOrDefault). */
export function settingsOrDefault<T extends Record<string, SettingName>>(
  env: Env,
  names: T,
): { [K in keyof T]: SettingValue<T[K]> } {
  return Object.fromEntries(
    Object.entries(names).map(([key, name]) => [key, settingOrDefault(env, name)]),
  ) as {
    [K in keyof T]: SettingValue<T[K]>;
  };
}

/** The playground's settings, typed. */
export interface PlaygroundConfig {
  /** The data folder, resolved against the working directory. */
  dataDir: string;
  relayTimeoutMs: number;
  /** One idle limit for every server's episodes, or null (each server's own). */
  idleTimeoutMs: number | null;
  maxStepBytes: number;
  exchangeLimit: { count: number; chars: number };
  retention: { maxCount: number; maxAgeDays: number };
  keepAliveIdleMs: number;
  /** Runs as jobs (PostgreSQL): whether this process is a worker, its lease, its episodes at once. */
  runs: { worker: boolean; leaseMs: number; workerSlots: number };
}

/**
 * Reads and checks every setting of `env` at once: a ConfigError naming each bad variable and what
 * it expects, so a typo stops the start instead of being ignored.
 */
export function loadConfig(env: Env = processEnv()): PlaygroundConfig {
  const errors: string[] = [];
  for (const name of Object.keys(SETTINGS) as SettingName[]) {
    const r = parseSetting(env, name);
    if (!r.ok) errors.push(r.error);
  }
  if (errors.length) throw new ConfigError(`bad configuration: ${errors.join("; ")}`);
  const get = <K extends SettingName>(name: K) => readSetting(env, name);
  return {
    dataDir: path.resolve(/*turbopackIgnore: true*/ get("PLAYGROUND_DATA_DIR")),
    relayTimeoutMs: get("PLAYGROUND_RELAY_TIMEOUT_MS"),
    idleTimeoutMs: get("PLAYGROUND_IDLE_TIMEOUT_S"),
    maxStepBytes: get("PLAYGROUND_MAX_STEP_BYTES"),
    exchangeLimit: { count: get("PLAYGROUND_MAX_EXCHANGES"), chars: get("PLAYGROUND_MAX_EXCHANGE_CHARS") },
    retention: {
      maxCount: get("PLAYGROUND_MAX_TRAJECTORIES"),
      maxAgeDays: get("PLAYGROUND_MAX_TRAJECTORY_AGE_DAYS"),
    },
    keepAliveIdleMs: get("PLAYGROUND_KEEPALIVE_IDLE_MS"),
    runs: {
      worker: get("PLAYGROUND_RUN_WORKER") === "1",
      leaseMs: get("PLAYGROUND_RUN_LEASE_MS"),
      workerSlots: get("PLAYGROUND_RUN_WORKER_SLOTS"),
    },
  };
}
