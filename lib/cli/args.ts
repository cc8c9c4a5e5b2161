// Small helpers for the command-line tools: flag parsing with `--flag value` and `--flag=value`,
// durations (`30000`, `30s`, `2m`), and the usage error every command reports with exit code 2.

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

/** Parses argv by `spec`; an unknown flag, a missing value or a repeated flag is a UsageError. */
export function parseArgs(argv: readonly string[], spec: FlagSpec): ParsedArgs {
  const out: ParsedArgs = { positionals: [], values: new Map(), booleans: new Set(), lists: new Map() };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      out.positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      out.positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    let flag = eq > 0 ? arg.slice(0, eq) : arg;
    flag = spec.aliases?.[flag] ?? flag;
    if (spec.booleans.includes(flag)) {
      if (eq > 0) throw new UsageError(`${flag} takes no value`);
      out.booleans.add(flag);
      continue;
    }
    if (!spec.values.includes(flag)) throw new UsageError(`unknown option ${flag}`);
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
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
