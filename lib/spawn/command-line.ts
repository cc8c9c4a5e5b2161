// The command line of a server the playground starts (`start --spawn "python my_env.py --port
// {port}"`), split into a program and its arguments as a POSIX shell would (quotes, backslashes,
// leading `NAME=value` assignments), so the process is started without a shell. A command that
// needs a shell (pipes, `&&`, redirections, `$VAR`, globs) is recognised and run by `/bin/sh -c`
// on purpose, and says why. Isomorphic (no Node imports): the config file's checks use it too.

/** The placeholder replaced by the server's port, in every argument (or in the shell command). */
export const PORT_PLACEHOLDER = "{port}";

export type ParsedCommand =
  /** Started directly: `argv[0]` is the program; `env` holds leading `NAME=value` words. */
  | { kind: "argv"; argv: string[]; env: Record<string, string> }
  /** Started through the shell, because of `reason` (e.g. `a pipe (|)`). */
  | { kind: "shell"; command: string; reason: string };

export class CommandLineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CommandLineError";
  }
}

const OPERATORS: Record<string, string> = {
  "|": "a pipe (|)",
  "&": "& (background or &&)",
  ";": "a ; between commands",
  "<": "a redirection (<)",
  ">": "a redirection (>)",
  "(": "a subshell (parentheses)",
  ")": "a subshell (parentheses)",
  $: "a variable or substitution ($)",
  "`": "a command substitution (`)",
  "*": "a glob (*)",
  "?": "a glob (?)",
  "[": "a glob ([)",
  "\n": "several lines",
};

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/**
 * Splits `command` into words. A shell feature outside quotes (or `$`/backquote inside double
 * quotes) makes it a shell command. Throws CommandLineError for an empty command or an unclosed quote.
 */
export function parseCommandLine(command: string): ParsedCommand {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let shellReason: string | null = null;
  const needShell = (why: string) => {
    shellReason ??= why;
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (c === " " || c === "\t" || c === "\r") {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
      continue;
    }
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) throw new CommandLineError(`unclosed ' quote in ${JSON.stringify(command)}`);
      word += command.slice(i + 1, end);
      inWord = true;
      i = end;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      for (; j < command.length && command[j] !== '"'; j++) {
        const d = command[j]!;
        if (d === "\\" && j + 1 < command.length && '"\\$`\n'.includes(command[j + 1]!)) {
          if (command[j + 1] !== "\n") word += command[j + 1];
          j++;
        } else {
          if (d === "$" || d === "`") needShell(OPERATORS[d]!);
          word += d;
        }
      }
      if (j >= command.length) throw new CommandLineError(`unclosed " quote in ${JSON.stringify(command)}`);
      inWord = true;
      i = j;
      continue;
    }
    if (c === "\\") {
      if (i + 1 < command.length) {
        if (command[i + 1] !== "\n") word += command[i + 1];
        i++;
      }
      inWord = true;
      continue;
    }
    if (!inWord && (c === "#" || c === "~")) needShell(c === "#" ? "a comment (#)" : "a home folder (~)");
    const op = OPERATORS[c];
    if (op) needShell(op);
    word += c;
    inWord = true;
  }
  if (inWord) words.push(word);
  if (shellReason !== null) return { kind: "shell", command: command.trim(), reason: shellReason };
  const env: Record<string, string> = {};
  while (words.length > 0 && ASSIGNMENT.test(words[0]!)) {
    const w = words.shift()!;
    const eq = w.indexOf("=");
    env[w.slice(0, eq)] = w.slice(eq + 1);
  }
  if (words.length === 0)
    throw new CommandLineError(
      command.trim() ? `no program in ${JSON.stringify(command)} (only variables)` : "the command is empty",
    );
  return { kind: "argv", argv: words, env };
}

/** The command with `{port}` replaced by `port` (each argument, or the shell command). */
export function withPort(parsed: ParsedCommand, port: number): ParsedCommand {
  const p = String(port);
  if (parsed.kind === "shell") return { ...parsed, command: parsed.command.split(PORT_PLACEHOLDER).join(p) };
  return { ...parsed, argv: parsed.argv.map((a) => a.split(PORT_PLACEHOLDER).join(p)) };
}

/** Whether the command mentions `{port}` (else the server learns its port from $PORT only). */
export function mentionsPort(parsed: ParsedCommand): boolean {
  return parsed.kind === "shell"
    ? parsed.command.includes(PORT_PLACEHOLDER)
    : parsed.argv.some((a) => a.includes(PORT_PLACEHOLDER));
}

/** An argument as a shell would need it written (for showing a command, never for running it). */
function quoted(arg: string): string {
  return /^[\w@%+=:,./{}-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The command as shown in logs and the UI. */
export function showCommand(parsed: ParsedCommand): string {
  if (parsed.kind === "shell") return parsed.command;
  const vars = Object.entries(parsed.env).map(([k, v]) => `${k}=${quoted(v)}`);
  return [...vars, ...parsed.argv.map(quoted)].join(" ");
}

/**
 * A default server name from a command: the script it runs (`python my_env.py` → `my_env`, `python
 * -m pkg.server` → `server`), else the program's name; lower-cased, cut to what server names allow.
 * Null when nothing usable comes out.
 */
export function nameFromCommand(parsed: ParsedCommand): string | null {
  let pick: string | undefined;
  if (parsed.kind === "argv") {
    const [program, ...args] = parsed.argv;
    const script = args.find((a) => /\.(py|ts|mts|js|mjs|cjs|rb|sh)$/i.test(a) && !a.startsWith("-"));
    const m = args.indexOf("-m");
    pick = script ?? (m >= 0 ? args[m + 1]?.split(".").pop() : undefined) ?? program;
  } else {
    pick = parsed.command.match(/[\w./-]+\.(?:py|ts|mts|js|mjs|cjs|rb|sh)\b/i)?.[0];
  }
  if (!pick) return null;
  const base = pick
    .split(/[\\/]/)
    .pop()!
    .replace(/\.[a-z]+$/i, "");
  const name = base
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^[-_]+/, "")
    .slice(0, 32)
    .replace(/[-_]+$/, "");
  return name || null;
}
