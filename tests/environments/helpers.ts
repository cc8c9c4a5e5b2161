// Real processes for the environment-source tests: the `ors-playground` bin (or the app's entry)
// started on a loopback port, its output collected, waited for, and stopped by its PID.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { collectOutput } from "../support/child-output";

export const REPO = path.resolve(__dirname, "../..");
export const BIN = path.join(REPO, "bin/ors-playground.mjs");

/** The access token of the apps these tests start (pages and APIs ask for it; ORS endpoints do not). */
export const TEST_TOKEN = "unit-tests-playground-token";
/** Headers that carry TEST_TOKEN, for a test's requests to the app's pages and APIs. */
export const WITH_TOKEN: Readonly<Record<string, string>> = { authorization: `Bearer ${TEST_TOKEN}` };

export interface Proc {
  child: ChildProcess;
  out(): string;
  err(): string;
  /** Resolves with the first match of `re` in stdout (polling the output), or rejects on exit/timeout. */
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  stop(): Promise<number | null>;
}

/**
 * Starts `node <args>` (or `opts.command <args>`) in `cwd` with extra variables, in a process group
 * of its own; stdout/stderr collected. An app started so asks for TEST_TOKEN unless `opts.env` says
 * otherwise.
 */
export function start(
  args: string[],
  opts: { cwd: string; env?: Record<string, string>; command?: string },
): Proc {
  // The test runner's NODE_ENV=test must not reach the app (Next picks its build by it).
  const env: Record<string, string | undefined> = {
    ...process.env,
    ORS_API_KEYS: "",
    PLAYGROUND_TOKEN: TEST_TOKEN,
    ...opts.env,
  };
  delete env.NODE_ENV;
  const child = spawn(opts.command ?? process.execPath, args, {
    cwd: opts.cwd,
    env: env as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const { out, err } = collectOutput(child);
  const proc: Proc = {
    child,
    out,
    err,
    waitFor(re, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const deadline = Date.now() + timeoutMs;
        const tick = () => {
          const m = out().match(re);
          if (m) return resolve(m);
          if (child.exitCode !== null)
            return reject(new Error(`exited with ${child.exitCode} before ${re}:\n${out()}\n${err()}`));
          if (Date.now() > deadline)
            return reject(new Error(`timed out waiting for ${re}:\n${out()}\n${err()}`));
          setTimeout(tick, 50);
        };
        tick();
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      // "close": the process exited and every process holding its output pipes (npx's child, which
      // may stop after the shell we started) let go of them, so out() and err() are complete.
      const exited = once(child, "close");
      // The group, by the PID we started: `npx` runs the command in a child of its own.
      if (opts.command && child.pid) process.kill(-child.pid, "SIGTERM");
      else child.kill("SIGTERM");
      const timer = setTimeout(() => {
        // Its whole group (tsx may have a child), by the PID we started.
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      }, 15_000);
      const [code] = (await exited) as [number | null];
      clearTimeout(timer);
      return code;
    },
  };
  return proc;
}

/** Runs `node <args>` to its end; its exit code and output. */
export async function run(
  args: string[],
  opts: { cwd: string; env?: Record<string, string> },
): Promise<{ code: number | null; out: string; err: string }> {
  const p = start(args, opts);
  const [code] = (await once(p.child, "exit")) as [number | null];
  return { code, out: p.out(), err: p.err() };
}

/** A temporary folder outside the repository, removed by the returned function. */
export function tempDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Polls `fn` until it returns a value that is not undefined (or the time is up). */
export async function eventually<T>(fn: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`not within ${timeoutMs} ms${last ? `: ${(last as Error).message}` : ""}`);
}

/**
 * A small ORS client over fetch for the tests: JSON endpoints and a tool call's result. It sends
 * TEST_TOKEN, which the relay (`/api/servers/...`) asks for and the ORS endpoints ignore.
 */
export function orsAt(base: string) {
  const post = (p: string, body: unknown, sid?: string) =>
    fetch(`${base}${p}`, {
      method: "POST",
      headers: { ...WITH_TOKEN, "content-type": "application/json", ...(sid ? { "x-session-id": sid } : {}) },
      body: JSON.stringify(body),
    });
  return {
    get: async (p: string, sid?: string) =>
      (
        await fetch(`${base}${p}`, { headers: { ...WITH_TOKEN, ...(sid ? { "x-session-id": sid } : {}) } })
      ).json(),
    post,
    async episode(env: string, split: string, index: number): Promise<string> {
      const { sid } = (await (
        await fetch(`${base}/create_session`, { method: "POST", headers: WITH_TOKEN })
      ).json()) as {
        sid: string;
      };
      const res = await post("/create", { env_name: env, split, index }, sid);
      expect(res.status).toBe(200);
      return sid;
    },
    /** A call's result (chunk…end joined), or the error event / HTTP error as `{ status, error }`. */
    async call(env: string, sid: string, name: string, input: unknown): Promise<Record<string, unknown>> {
      const res = await post(`/${env}/call`, { name, input }, sid);
      const text = await res.text();
      if (res.status !== 200)
        return { status: res.status, error: (JSON.parse(text) as { detail: string }).detail };
      const events = [...text.matchAll(/event: (\w+)\ndata: ?(.*)\n\n/g)].map((m) => ({
        event: m[1],
        data: m[2],
      }));
      const err = events.find((e) => e.event === "error");
      if (err) return { status: 200, error: err.data };
      return JSON.parse(
        events
          .filter((e) => e.event === "chunk" || e.event === "end")
          .map((e) => e.data)
          .join(""),
      ) as Record<string, unknown>;
    },
  };
}

/** docs/authoring.md: the author's loop, whose examples the tests run as printed. */
export const AUTHORING_DOC = path.join(REPO, "docs/authoring.md");

/**
 * A block of docs/authoring.md (or of `file`, e.g. the README) exactly as printed: the fenced block
 * after its `<!-- authoring-example:NAME ... -->` marker (`envs.ts`, `tsconfig.json`, `setup.sh`,
 * `run.sh`).
 */
export function authoringExample(name: string, file = AUTHORING_DOC): string {
  const doc = readFileSync(file, "utf8");
  const marker = new RegExp(`<!-- authoring-example:${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}[ -]`);
  const at = marker.exec(doc)?.index ?? -1;
  expect(at, `${path.relative(REPO, file)} has the example ${name}`).toBeGreaterThan(0);
  const m = /```[a-z]*\n([\s\S]*?)```/.exec(doc.slice(at));
  expect(m).not.toBeNull();
  return m![1]!;
}

/** The command lines of a shell example, as printed (comments stay: the shell reads them). */
export function exampleCommands(name: string): string[] {
  return authoringExample(name)
    .split("\n")
    .filter((l) => l.trim() && !l.trim().startsWith("#"));
}

/**
 * An author's envs.ts (served from a folder outside the repository): the environment "counter" of
 * one tool, `step`, described as `description`, with a task per `starts` and `reward` (an expression)
 * as every step's reward; `imports` stand above it.
 */
export function counterModule(
  description: string,
  { starts, reward, imports = "" }: { starts: number[]; reward: string; imports?: string },
): string {
  return `import { defineEnvironment, defineTool, text, z } from "ors-playground/sdk";
${imports}
export const counter = defineEnvironment({
  name: "counter",
  splits: ["train"],
  listTasks: () => ${JSON.stringify(starts.map((start) => ({ start })))},
  getPrompt: ({ task }) => \`Count from \${task.start}.\`,
  tools: {
    step: defineTool({
      description: ${JSON.stringify(description)},
      input: z.object({ n: z.number().int() }),
      run: ({ n }) => ({ blocks: [text(\`got \${n}\`)], reward: ${reward}, finished: false }),
    }),
  },
});
`;
}
