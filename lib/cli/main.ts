// The `ors-playground` command (bin/ors-playground.mjs): picks the command — `start` (the default),
// `serve`, `check` (lib/cli/check-command.ts), `test` (lib/cli/test-command.ts), `run`
// (lib/cli/run-command.ts), `diff` (lib/cli/diff-command.ts), `stub` (lib/cli/stub-command.ts),
// `mcp` (lib/cli/mcp-command.ts),
// `worker` (lib/cli/worker-command.ts) — and hands it the arguments. Answers `--help` and `--version`, and exit code 2 with a clear message for an unknown
// command.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CHECK_USAGE, checkCommand } from "./check-command";
import { DIFF_USAGE, diffCommand } from "./diff-command";
import type { CommandIo } from "./io";
import { MCP_USAGE, mcpCommand } from "./mcp-command";
import { RUN_USAGE, runCommand } from "./run-command";
import { SERVE_USAGE, serveCommand } from "./serve-command";
import { START_USAGE, startCommand } from "./start-command";
import { STUB_USAGE, stubCommand } from "./stub-command";
import { TEST_USAGE, testCommand } from "./test-command";
import { WORKER_USAGE, workerCommand } from "./worker-command";

const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The package's version (package.json). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string })
    .version;
}

export const CLI_USAGE = `usage: ors-playground [command] [options]

The ORS Playground: a web UI for any Open Reward Standard server, an ORS host for TypeScript
environments, and tools for scripts and CI.

commands:
  start            (the default) the playground on http://127.0.0.1:3000, e.g.
                     ors-playground --server py=http://127.0.0.1:8080
                     ors-playground --env ./envs.ts
  serve            an ORS server of your module, without the UI:  ors-playground serve --env ./envs.ts
  check URL        a conformance check of any ORS server (exit code 1 when something breaks)
  test FILE...     replays golden episodes on a server as regression tests (exit code 1 on a
                   difference), e.g. ors-playground test golden.jsonl --server http://127.0.0.1:8080
  run URL          a policy (a model, random inputs, a replay, your script) plays a split; the run
                   shows in the playground, e.g. ors-playground run http://127.0.0.1:8080 --env math
                   --split test --model-url http://127.0.0.1:8000/v1 --model qwen2.5 --min-success 0.8
  worker           plays runs' episodes from the job queue on PostgreSQL (PLAYGROUND_DATABASE_URL),
                   alone: many workers on many machines play one run together
  diff A B         what changed between two versions of a server: breaking, compatible and cosmetic
                   changes, and with --replay RUN the tasks whose scores flipped (exit code 1 when
                   something breaks), e.g. ors-playground diff http://127.0.0.1:8080 http://127.0.0.1:8081
  stub RUN|FILE    serves recorded episodes (a run, or exported trajectories) as an ORS server that
                   answers each call with its recorded result, e.g. ors-playground stub episodes.jsonl
  mcp SERVER       an ORS server's environments as an MCP server (Claude Code, Cursor ...), e.g.
                     claude mcp add math -- npx ors-playground mcp http://127.0.0.1:8080 --env math
  help [command]   the options of a command

options:
  -h, --help       this help (with a command: that command's)
  -v, --version    the version
`;

/** Each command: what it runs with the arguments after its name, and its usage (`help COMMAND`). */
const COMMANDS: Record<
  string,
  { run(argv: readonly string[], io: CommandIo): Promise<number>; usage: string }
> = {
  start: { run: (argv, io) => startCommand(argv, { ...io, version: packageVersion() }), usage: START_USAGE },
  serve: { run: serveCommand, usage: SERVE_USAGE },
  check: { run: checkCommand, usage: CHECK_USAGE },
  test: { run: testCommand, usage: TEST_USAGE },
  run: { run: runCommand, usage: RUN_USAGE },
  worker: { run: workerCommand, usage: WORKER_USAGE },
  diff: { run: diffCommand, usage: DIFF_USAGE },
  stub: { run: stubCommand, usage: STUB_USAGE },
  mcp: { run: (argv, io) => mcpCommand(argv, { ...io, version: packageVersion() }), usage: MCP_USAGE },
};
const NAMES = [...Object.keys(COMMANDS), "help"].join(", ");

function commandNamed(name: string) {
  return Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
}

/** Runs the CLI; resolves with the exit code. */
export async function runCli(argv: readonly string[], io: CommandIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === "--version" || first === "-v" || first === "version") {
    io.stdout(`${packageVersion()}\n`);
    return 0;
  }
  if (first === "--help" || first === "-h") {
    io.stdout(CLI_USAGE);
    return 0;
  }
  if (first === undefined || first.startsWith("-")) return COMMANDS.start!.run(argv, io);
  const command = commandNamed(first);
  if (command) return command.run(rest, io);
  if (first === "help") {
    const topic = rest[0];
    if (topic === undefined) {
      io.stdout(CLI_USAGE);
      return 0;
    }
    const usage = commandNamed(topic)?.usage;
    if (usage === undefined) {
      io.stderr(`ors-playground: no command ${JSON.stringify(topic)} (commands: ${NAMES})\n`);
      return 2;
    }
    io.stdout(usage);
    return 0;
  }
  io.stderr(
    `ors-playground: unknown command ${JSON.stringify(first)} (commands: ${NAMES}; see ors-playground --help)\n`,
  );
  return 2;
}
