// Small helpers for the command-line tools: flag parsing with `--flag value` and `--flag=value` (on
// node:util's parseArgs), durations (`30000`, `30s`, `2m`), and the usage error every command
// reports with exit code 2.
import { parseArgs as nodeParseArgs } from "node:util";

/** A mistake in the command line: the command prints it with its usage and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export interface FlagSpec {
  /** Flags that take a value, e.g. `--env`. */
  values: readonly string[];
  /** Flags that take none, e.g. `--json`. */
  booleans: readonly string[];
  /** Short aliases, e.g. `{ "-h": "--help" }`. */
  aliases?: Readonly<Record<string, string>>;
  /** Value flags that may be given more than once, e.g. `--server`: all their values in `lists`. */
  repeatable?: readonly string[];
}

export interface ParsedArgs {
  positionals: string[];
  values: Map<string, string>;
  booleans: Set<string>;
  /** Every value of a repeatable flag, in order. */
  lists: Map<string, string[]>;
}

/** node:util's name of a flag (`--env` → `env`, `-h` → `h`). */
function bare(flag: string): string {
  return flag.replace(/^--?/, "");
}

/**
 * Parses argv by `spec`; an unknown flag, a missing value or a repeated flag is a UsageError.
 * Tokenizing is node:util's `parseArgs`; this layer adds what it does not do: aliases that are
 * long names (`--hostname`), repeatable flags collected apart, and our messages. A value may start
 * with a dash (`--input -1`), `--flag=value` works for short flags too, and grouped short flags
 * (`-p4000`, `-hp`) are refused as unknown.
 */
export function parseArgs(argv: readonly string[], spec: FlagSpec): ParsedArgs {
  const out: ParsedArgs = { positionals: [], values: new Map(), booleans: new Set(), lists: new Map() };
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {};
  const typeOf = (flag: string) => (spec.booleans.includes(flag) ? "boolean" : "string");
  for (const flag of [...spec.values, ...spec.booleans]) options[bare(flag)] = { type: typeOf(flag) };
  for (const [alias, flag] of Object.entries(spec.aliases ?? {})) {
    if (!spec.values.includes(flag) && !spec.booleans.includes(flag)) continue;
    if (alias.startsWith("--")) options[bare(alias)] = { type: typeOf(flag) };
    else if (/^-[^-]$/.test(alias)) options[bare(flag)]!.short = alias.slice(1);
  }
  // Long options are named as written; short ones by the long name they stand for.
  const byName = new Map<string, string>();
  for (const name of Object.keys(options)) byName.set(name, `--${name}`);
  for (const [alias, flag] of Object.entries(spec.aliases ?? {}))
    if (alias.startsWith("--")) byName.set(bare(alias), flag);

  const { tokens } = nodeParseArgs({
    args: [...argv],
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  for (const token of tokens) {
    if (token.kind === "positional") {
      out.positionals.push(token.value);
      continue;
    }
    if (token.kind === "option-terminator") continue;
    const arg = argv[token.index]!;
    const eq = arg.indexOf("=");
    const written = eq > 0 ? arg.slice(0, eq) : arg;
    // A short flag inside a group (`-hp`) or with its value stuck on (`-p4000`) is no flag of ours.
    if (written !== token.rawName) throw new UsageError(`unknown option ${written}`);
    const flag = byName.get(token.name);
    if (!flag || !(token.name in options)) throw new UsageError(`unknown option ${written}`);
    if (spec.booleans.includes(flag)) {
      if (eq > 0) throw new UsageError(`${flag} takes no value`);
      out.booleans.add(flag);
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : token.value;
    if (value === undefined) throw new UsageError(`${flag} needs a value`);
    if (spec.repeatable?.includes(flag)) {
      out.lists.set(flag, [...(out.lists.get(flag) ?? []), value]);
      continue;
    }
    if (out.values.has(flag)) throw new UsageError(`${flag} is given twice`);
    out.values.set(flag, value);
  }
  return out;
}

/**
 * Milliseconds from `1500`, `1500ms`, `30s` or `2m`; a UsageError naming `flag` otherwise (also for
 * 0, unless `allowZero`).
 */
export function parseDuration(value: string, flag: string, options: { allowZero?: boolean } = {}): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value.trim());
  if (!m)
    throw new UsageError(
      `${flag}: expected milliseconds (e.g. 30000) or 30s / 2m, got ${JSON.stringify(value)}`,
    );
  const n = Math.round(Number(m[1]) * (m[2] === "m" ? 60_000 : m[2] === "s" ? 1000 : 1));
  if (!Number.isFinite(n) || (n === 0 && !options.allowZero))
    throw new UsageError(`${flag}: must be more than 0`);
  return n;
}

/** A port number flag or variable (0 picks a free port); a UsageError naming `what` otherwise. */
export function portOf(value: string, what: string): number {
  const port = Number(value);
  if (value.trim() === "" || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`${what} must be a port number (0-65535), got ${JSON.stringify(value)}`);
  return port;
}

/**
 * An http(s) URL given on the command line, without its query, fragment and trailing slashes; a
 * UsageError (prefixed with `what`, the flag or argument it came as) for anything else, and for a
 * URL carrying credentials (the key goes in --api-key).
 */
export function parseHttpUrl(value: string, what?: string): string {
  const at = what ? `${what}: ` : "";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${at}not a URL: ${JSON.stringify(value)} (e.g. http://127.0.0.1:8080)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`${at}the URL must be http:// or https://, got ${url.protocol}`);
  if (url.username || url.password)
    throw new UsageError(`${at}the URL must not carry credentials (use --api-key)`);
  url.hash = "";
  url.search = "";
  return url.toString().replace(/\/+$/, "");
}

/**
 * A command's answer to a mistake on its command line: the message and the usage on stderr, exit
 * code 2. Anything but a UsageError is thrown on.
 */
export function usageFailure(
  err: unknown,
  io: { stderr(text: string): void },
  prefix: string,
  usage: string,
): 2 {
  if (!(err instanceof UsageError)) throw err;
  io.stderr(`${prefix}: ${err.message}\n\n${usage}`);
  return 2;
}

/**
 * A command's parsed command line, or its exit code: 2 (usageFailure) for a mistake, 0 after printing
 * `usage` when `parse` answers null (--help).
 */
export function commandArgs<T>(
  parse: () => T | null,
  io: { stdout(text: string): void; stderr(text: string): void },
  prefix: string,
  usage: string,
): T | number {
  let parsed: T | null;
  try {
    parsed = parse();
  } catch (err) {
    return usageFailure(err, io, prefix, usage);
  }
  if (parsed !== null) return parsed;
  io.stdout(usage);
  return 0;
}

/** An integer flag from `min` to `max` (`fallback` when not given); a UsageError naming `flag` otherwise. */
export function integerFlag(
  raw: string | undefined,
  flag: string,
  min: number,
  max: number,
  fallback: number,
): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!raw.trim() || !Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`${flag}: expected an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  return n;
}
