// What the CLI tests share: an in-process command's output captured, and a CLI script run as the
// real child process it is from npm (tsx, the repo as its folder, no colours).
import { type ChildProcess, execFile, spawn } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { lineMatch } from "../relay/helpers";

const REPO_ROOT = path.resolve(__dirname, "../..");

/** An `io` for a command run in process, and what it wrote. */
export function captureIo() {
  const out = { stdout: "", stderr: "" };
  const io = {
    stdout: (s: string) => {
      out.stdout += s;
    },
    stderr: (s: string) => {
      out.stderr += s;
    },
  };
  return { out, io };
}

export interface ScriptRun {
  child: ChildProcess;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** What a child process wrote, and its exit code once it exits. */
function collect(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr!.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, stdout, stderr })));
}

/** `scripts/<script>` with `args`, as `npm run` starts it (without npm's banner). */
export function runScript(script: string, args: string[]): ScriptRun {
  const child = spawn(process.execPath, ["--import", "tsx", path.join("scripts", script), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return { child, done: collect(child) };
}

/** What `scripts/<script> <args>` prints on stdout, run to its end under tsx; killed after `timeoutMs`. */
export async function scriptOutput(script: string, args: string[], timeoutMs: number): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", path.join("scripts", script), ...args],
    { cwd: REPO_ROOT, timeout: timeoutMs },
  );
  return stdout;
}

/** `ors-playground <args>` as a user types it (bin/ors-playground.mjs, a child process; no colours). */
export function runBin(
  args: string[],
  o: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, "bin/ors-playground.mjs"), ...args], {
    cwd: o.cwd ?? REPO_ROOT,
    env: { ...process.env, NO_COLOR: "1", ...o.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return collect(child);
}

/** Command-line flags from a record, in its order: `{ env: "math", tasks: "0-5" }` → `--env math --tasks 0-5`. */
export function flags(values: Record<string, string>): string[] {
  return Object.entries(values).flatMap(([name, value]) => [`--${name}`, value]);
}

/** Records a run with the real `run` command (`args` after the URL) into `dataDir`; its id. */
export async function recordRun(url: string, args: string[], dataDir: string): Promise<string> {
  const r = await runBin(["run", url, ...args, "--json", "-", "--data-dir", dataDir]);
  if (r.code !== 0) throw new Error(`run ${args.join(" ")}: exit ${r.code}: ${r.stderr}`);
  return (JSON.parse(r.stdout.slice(r.stdout.indexOf("{"))) as { id: string }).id;
}

export interface BinServer {
  url: string;
  stderr(): string;
  stop(): Promise<void>;
}

/**
 * A long-running `ors-playground <args>` (e.g. `stub`), resolved once it prints `listening on URL`;
 * `stop()` sends SIGTERM to its process group and waits for it to exit.
 */
export async function startBin(args: string[], o: { env?: Record<string, string> } = {}): Promise<BinServer> {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, "bin/ors-playground.mjs"), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, NO_COLOR: "1", ...o.env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let err = "";
  child.stderr!.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once("exit", () => r()));
    process.kill(-child.pid!, "SIGTERM");
    await exited;
  };
  try {
    const url = await lineMatch(child, /listening on (http:\/\/\S+)/, 60_000, () => err);
    return { url, stderr: () => err, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
