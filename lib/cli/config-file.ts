// The config file of `start` (`ors-playground.config.json` in the current folder, or `--config
// FILE`; docs/cli.md "The config file"): servers, spawned servers, model endpoints and the access
// policy, validated (zod, strict: an unknown key is an error naming it and the file) and turned into
// the variables the app already reads. What the environment sets wins over the file; the command
// line wins over both (lib/cli/start-command.ts applies them in that order).
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { invalidServerName } from "@/lib/registry/registry";
import { CommandLineError, parseCommandLine } from "@/lib/spawn/command-line";
import type { SpawnSpec } from "@/lib/spawn/managed-server";
import { RESTART_POLICIES } from "@/lib/spawn/types";

export const CONFIG_FILE_NAME = "ors-playground.config.json";

/** A config file that cannot be used: the message names the file, and each problem with its key. */
export class ConfigFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigFileError";
  }
}

const MAX_CONFIG_BYTES = 1024 * 1024;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

const httpUrl = z.string().refine(
  (v) => {
    try {
      const u = new URL(v);
      return u.protocol === "http:" || u.protocol === "https:";
    } catch {
      return false;
    }
  },
  { error: (iss) => `must be an http:// or https:// URL, got ${JSON.stringify(iss.input)}` },
);
const variableName = z
  .string()
  .regex(VARIABLE, { error: "must be the name of an environment variable (letters, digits, _)" });
const secret = z.string().min(1, { error: "must not be empty" });
const nameKey = (what: string) =>
  z.string().superRefine((name, ctx) => {
    const bad = invalidServerName(name);
    if (bad) ctx.addIssue({ code: "custom", message: `${what} ${JSON.stringify(name)}: ${bad}` });
  });
const oneOf = (a: string, b: string) => (v: Record<string, unknown>) =>
  !(v[a] !== undefined && v[b] !== undefined);
/** The short form of an entry (a URL, a command line or list) as its object form. */
const shortFor = (key: string) => (v: unknown) =>
  typeof v === "string" || Array.isArray(v) ? { [key]: v } : v;
const objectError = (what: string) => ({
  error: (iss: { code: string }) => (iss.code === "invalid_type" ? `expected ${what}` : undefined),
});

const serverSchema = z.preprocess(
  shortFor("url"),
  z
    .strictObject(
      {
        url: httpUrl,
        apiKey: secret.optional(),
        apiKeyEnv: variableName.optional(),
        idleTimeoutMs: z.number().int().positive().optional(),
      },
      objectError('a URL, or an object such as {"url": "http://127.0.0.1:8080"}'),
    )
    .refine(oneOf("apiKey", "apiKeyEnv"), { error: "give apiKey or apiKeyEnv, not both" }),
);

const stringList = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)], {
  error: "expected a folder or a list of folders",
});

const spawnSchema = z.preprocess(
  shortFor("command"),
  z.strictObject(
    {
      command: z.union(
        [
          z.string().superRefine((command, ctx) => {
            try {
              parseCommandLine(command);
            } catch (e) {
              if (e instanceof CommandLineError) ctx.addIssue({ code: "custom", message: e.message });
              else throw e;
            }
          }),
          z
            .array(z.string())
            .min(1)
            .refine((a) => a[0]!.trim() !== "", { error: "the program is empty" }),
        ],
        { error: "expected a command line, or a list of the program and its arguments" },
      ),
      cwd: z.string().min(1).optional(),
      watch: stringList.optional(),
      ignore: z.array(z.string().min(1)).optional(),
      env: z.record(variableName, z.string()).optional(),
      port: z.number().int().min(1).max(65535).optional(),
      readyTimeoutMs: z.number().int().positive().optional(),
      restart: z.enum(RESTART_POLICIES).optional(),
    },
    objectError('a command line, or an object such as {"command": "python my_env.py --port {port}"}'),
  ),
);

const modelSchema = z.preprocess(
  shortFor("baseUrl"),
  z
    .strictObject(
      {
        baseUrl: httpUrl,
        apiKey: secret.optional(),
        apiKeyEnv: variableName.optional(),
      },
      objectError('a base URL, or an object such as {"baseUrl": "http://127.0.0.1:8000/v1"}'),
    )
    .refine(oneOf("apiKey", "apiKeyEnv"), { error: "give apiKey or apiKeyEnv, not both" }),
);

const accessSchema = z
  .strictObject(
    {
      auth: z.enum(["token", "none"], { error: 'expected "token" or "none"' }).optional(),
      token: secret.optional(),
      tokenEnv: variableName.optional(),
      allowedHosts: z.array(z.string().min(1)).optional(),
      allowedOrigins: z.array(z.string().min(1)).optional(),
      allowRemoteServers: z.boolean().optional(),
    },
    objectError("an object"),
  )
  .refine(oneOf("token", "tokenEnv"), { error: "give token or tokenEnv, not both" })
  .refine((a) => !(a.auth === "none" && (a.token || a.tokenEnv)), {
    error: 'auth "none" and a token were both given: which one was meant?',
  });

export const configFileSchema = z.strictObject(
  {
    $schema: z.string().optional(),
    port: z.number().int().min(0).max(65535).optional(),
    host: z.string().min(1).optional(),
    dataDir: z.string().min(1).optional(),
    servers: z.record(nameKey("server"), serverSchema).optional(),
    spawn: z.record(nameKey("spawned server"), spawnSchema).optional(),
    models: z.record(nameKey("model endpoint"), modelSchema).optional(),
    access: accessSchema.optional(),
  },
  objectError("a JSON object"),
);

export type PlaygroundConfig = z.infer<typeof configFileSchema>;

/** The keys each object of the file may have, for "unknown key" errors. */
function knownKeys(where: readonly PropertyKey[]): string[] {
  if (where.length === 0) return Object.keys(configFileSchema.shape);
  if (where.length === 2 && where[0] === "servers") return ["url", "apiKey", "apiKeyEnv", "idleTimeoutMs"];
  if (where.length === 2 && where[0] === "spawn")
    return ["command", "cwd", "watch", "ignore", "env", "port", "readyTimeoutMs", "restart"];
  if (where.length === 2 && where[0] === "models") return ["baseUrl", "apiKey", "apiKeyEnv"];
  if (where.length === 1 && where[0] === "access")
    return ["auth", "token", "tokenEnv", "allowedHosts", "allowedOrigins", "allowRemoteServers"];
  return [];
}

function showPath(where: readonly PropertyKey[]): string {
  return where
    .map((p, i) =>
      typeof p === "number"
        ? `[${p}]`
        : /^[A-Za-z_$][\w$]*$/.test(String(p))
          ? `${i ? "." : ""}${String(p)}`
          : `[${JSON.stringify(String(p))}]`,
    )
    .join("");
}

/** Line and column of a character offset. */
function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return `line ${line}, column ${offset - before.lastIndexOf("\n")}`;
}

export interface LoadedConfig {
  /** The file, absolute. */
  file: string;
  config: PlaygroundConfig;
  /** Things to say at start (secrets in a file others can read; variables named but not set). */
  warnings: string[];
}

/**
 * Reads the config file: `file` (from --config: it must exist), else `ors-playground.config.json`
 * in `cwd` when there is one, else null. Throws ConfigFileError listing what is wrong.
 */
export function loadConfigFile(file: string | undefined, cwd: string): LoadedConfig | null {
  const abs = path.resolve(cwd, file ?? CONFIG_FILE_NAME);
  const shown = file ?? CONFIG_FILE_NAME;
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(abs);
  } catch {
    if (file === undefined) return null;
    throw new ConfigFileError(`--config ${file}: no such file (looked for ${abs})`);
  }
  if (!st.isFile()) throw new ConfigFileError(`${shown}: not a file`);
  if (st.size > MAX_CONFIG_BYTES)
    throw new ConfigFileError(`${shown}: larger than ${MAX_CONFIG_BYTES} bytes`);
  const text = readFileSync(abs, "utf8");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    const message = (e as Error).message;
    const at = /position (\d+)/.exec(message);
    throw new ConfigFileError(
      `${shown} is not valid JSON${at ? ` (${lineAndColumn(text, Number(at[1]))})` : ""}: ${message}`,
    );
  }
  const parsed = configFileSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 20).map((issue) => {
      const where = showPath(issue.path);
      if (issue.code === "unrecognized_keys") {
        const known = knownKeys(issue.path);
        const keys = issue.keys.map((k) => JSON.stringify(k)).join(", ");
        return `unknown key${issue.keys.length > 1 ? "s" : ""} ${keys}${where ? ` in ${where}` : ""}${known.length ? ` (known: ${known.join(", ")})` : ""}`;
      }
      // A bad name (a record's key) carries its own messages.
      const message =
        issue.code === "invalid_key" ? issue.issues.map((i) => i.message).join("; ") : issue.message;
      return `${where || "the file"}: ${message}`;
    });
    const more = parsed.error.issues.length > 20 ? `\n  ... and ${parsed.error.issues.length - 20} more` : "";
    throw new ConfigFileError(
      `${shown} (${abs}) is not a valid config file:\n  ${problems.join("\n  ")}${more}`,
    );
  }
  const config = parsed.data;
  const warnings: string[] = [];
  const secrets = [
    ...Object.entries(config.servers ?? {})
      .filter(([, s]) => s.apiKey)
      .map(([n]) => `servers.${n}.apiKey`),
    ...Object.entries(config.models ?? {})
      .filter(([, m]) => m.apiKey)
      .map(([n]) => `models.${n}.apiKey`),
    ...(config.access?.token ? ["access.token"] : []),
  ];
  // Keys and tokens in the file are allowed; readable by others they are not secrets any more.
  if (secrets.length && process.platform !== "win32" && (st.mode & 0o077) !== 0)
    warnings.push(
      `${shown} holds secrets (${secrets.join(", ")}) and other users of this machine may read it (mode ${(st.mode & 0o777).toString(8)}): run \`chmod 600 ${shown}\`, or name variables that hold them instead (apiKeyEnv, tokenEnv).`,
    );
  return { file: abs, config, warnings };
}

export interface ConfigLayer {
  /** The listen address of the file (the command line's --host wins). */
  host?: string;
  /** Its spawned servers, paths resolved against the file's folder. */
  spawn: SpawnSpec[];
  warnings: string[];
}

type Env = Record<string, string | undefined>;

const varName = (name: string) => name.toUpperCase().replace(/-/g, "_");

function namesIn(list: string | undefined): Set<string> {
  const out = new Set<string>();
  for (const part of (list ?? "").split(",")) {
    const eq = part.indexOf("=");
    if (eq > 0) out.add(part.slice(0, eq).trim());
  }
  return out;
}

/**
 * Sets the variables the app reads from what the file says, where the environment has not set them
 * already: PORT, PLAYGROUND_DATA_DIR, ORS_SERVERS (the file's servers after the environment's; a name
 * the environment gives wins, and the file's key then stays unused), ORS_SERVER_API_KEY_<NAME>,
 * ORS_SERVER_IDLE_TIMEOUT_MS_<NAME>, PLAYGROUND_MODELS, PLAYGROUND_MODEL_API_KEY_<NAME>,
 * PLAYGROUND_AUTH / PLAYGROUND_TOKEN (only when neither is set), PLAYGROUND_ALLOWED_HOSTS,
 * PLAYGROUND_ALLOWED_ORIGINS, PLAYGROUND_ALLOW_REMOTE_SERVERS. `given.servers`: names the command
 * line gives (`--server`), which win too: the file's key never goes to a URL it does not name.
 * Returns what has no variable.
 */
export function applyConfigFile(
  loaded: LoadedConfig,
  env: Env,
  given: { servers?: readonly string[] } = {},
): ConfigLayer {
  const { config } = loaded;
  const dir = path.dirname(loaded.file);
  const warnings = [...loaded.warnings];
  const unset = (name: string) => !env[name]?.trim();
  const fromVariable = (where: string, variable: string): string | undefined => {
    const value = env[variable];
    if (!value)
      warnings.push(
        `${path.basename(loaded.file)}: ${where} names $${variable}, which is not set: no key is sent.`,
      );
    return value || undefined;
  };

  if (config.port !== undefined && unset("PORT")) env.PORT = String(config.port);
  if (config.dataDir && unset("PLAYGROUND_DATA_DIR"))
    env.PLAYGROUND_DATA_DIR = path.resolve(dir, config.dataDir);

  // The file's servers, then its models, after the environment's list (NAME=URL,...): a name the
  // list has, or `taken`, wins; each entry's key goes into its own variable unless that is set.
  const addEntries = <T extends { apiKey?: string; apiKeyEnv?: string }>(
    section: "servers" | "models",
    listVar: "ORS_SERVERS" | "PLAYGROUND_MODELS",
    keyVarPrefix: string,
    entries: Record<string, T> | undefined,
    urlOf: (entry: T) => string,
    taken: readonly string[],
    then?: (name: string, entry: T) => void,
  ) => {
    const named = namesIn(env[listVar]);
    for (const name of taken) named.add(name);
    const added: string[] = [];
    for (const [name, e] of Object.entries(entries ?? {})) {
      if (named.has(name)) continue;
      added.push(`${name}=${urlOf(e)}`);
      const key =
        e.apiKey ?? (e.apiKeyEnv ? fromVariable(`${section}.${name}.apiKeyEnv`, e.apiKeyEnv) : undefined);
      const keyVar = `${keyVarPrefix}${varName(name)}`;
      if (key && unset(keyVar)) env[keyVar] = key;
      then?.(name, e);
    }
    if (added.length) env[listVar] = [env[listVar]?.trim(), ...added].filter(Boolean).join(",");
  };
  addEntries(
    "servers",
    "ORS_SERVERS",
    "ORS_SERVER_API_KEY_",
    config.servers,
    (s) => s.url,
    given.servers ?? [],
    (name, s) => {
      const idleVar = `ORS_SERVER_IDLE_TIMEOUT_MS_${varName(name)}`;
      if (s.idleTimeoutMs && unset(idleVar)) env[idleVar] = String(s.idleTimeoutMs);
    },
  );
  addEntries("models", "PLAYGROUND_MODELS", "PLAYGROUND_MODEL_API_KEY_", config.models, (m) => m.baseUrl, []);

  const access = config.access;
  if (access) {
    // The token policy is one setting: either variable in the environment decides it all.
    if (unset("PLAYGROUND_AUTH") && unset("PLAYGROUND_TOKEN")) {
      if (access.auth === "none") env.PLAYGROUND_AUTH = "none";
      const token =
        access.token ?? (access.tokenEnv ? fromVariable("access.tokenEnv", access.tokenEnv) : undefined);
      if (token) env.PLAYGROUND_TOKEN = token;
    }
    if (access.allowedHosts && unset("PLAYGROUND_ALLOWED_HOSTS"))
      env.PLAYGROUND_ALLOWED_HOSTS = access.allowedHosts.join(",");
    if (access.allowedOrigins && unset("PLAYGROUND_ALLOWED_ORIGINS"))
      env.PLAYGROUND_ALLOWED_ORIGINS = access.allowedOrigins.join(",");
    if (access.allowRemoteServers !== undefined && unset("PLAYGROUND_ALLOW_REMOTE_SERVERS"))
      env.PLAYGROUND_ALLOW_REMOTE_SERVERS = access.allowRemoteServers ? "1" : "0";
  }

  const spawn: SpawnSpec[] = Object.entries(config.spawn ?? {}).map(([name, s]) => {
    const cwd = path.resolve(dir, s.cwd ?? ".");
    const watch = s.watch === undefined ? [] : typeof s.watch === "string" ? [s.watch] : s.watch;
    return {
      name,
      command: s.command,
      cwd,
      watch: watch.map((w) => path.resolve(dir, w)),
      ...(s.ignore ? { ignore: s.ignore } : {}),
      ...(s.env ? { env: s.env } : {}),
      ...(s.port ? { port: s.port } : {}),
      ...(s.readyTimeoutMs ? { readyTimeoutMs: s.readyTimeoutMs } : {}),
      ...(s.restart ? { restart: s.restart } : {}),
    };
  });
  return { ...(config.host ? { host: config.host } : {}), spawn, warnings };
}
