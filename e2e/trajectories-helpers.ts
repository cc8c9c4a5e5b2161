// Helpers of the trajectory e2e specs: a plain ORS client through the relay, trajectory look-ups
// over the HTTP API, a `next start` process of our own (for the restart test), and a test-only
// ORS server whose environment behaviour is switched at call time (for the replay-diff test).
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "@playwright/test";
import { z } from "zod";
import { createOrsClient, type OrsClient } from "@/lib/ors/client";
import { createOrsHandler, serveNode } from "@/lib/ors/host";
import { defineEnvironment, defineTool, text } from "@/lib/ors/sdk";
import type { Trajectory } from "@/lib/trajectory/schema";

/** A plain ORS client using the app's relay for `server` as its base URL. */
export function relayClient(base: string, server: string): OrsClient {
  return createOrsClient({ baseUrl: `${base}/api/servers/${server}` });
}

/** A session opened by a plain ORS client on `env` (a task or a task_spec), its prompt asked: its id. */
export async function openedSession(
  ors: OrsClient,
  env: string,
  task: { split: string; index: number } | { task_spec: Record<string, unknown> },
): Promise<string> {
  const { sid } = await ors.createSession();
  await ors.create(sid, { env_name: env, ...task });
  await ors.prompt(env, sid);
  return sid;
}

/** What an outside ORS client needs to drive one episode through the relay. */
export interface RelaySession {
  ors: OrsClient;
  sid: string;
  /** Calls the tool `name` of the session's environment. */
  call(name: string, input: Record<string, unknown>): ReturnType<OrsClient["callTool"]>;
  /** Waits until `steps` calls are recorded, ends the session, and returns the trajectory as it was then. */
  close(steps?: number): Promise<Trajectory>;
}

/** A session opened on `env` through the relay for `server` (as openedSession), with its tools' caller. */
export async function relaySession(
  base: string,
  server: string,
  env: string,
  task: Parameters<typeof openedSession>[2],
): Promise<RelaySession> {
  const ors = relayClient(base, server);
  const sid = await openedSession(ors, env, task);
  return {
    ors,
    sid,
    call: (name, input) => ors.callTool(env, sid, { name, input }),
    async close(steps = 0) {
      const t = await trajectoryOf(base, server, sid, steps);
      await ors.delete(sid);
      return t;
    },
  };
}

/** The trajectory recorded for a session (polls until the recorder has written it). */
export async function trajectoryOf(
  base: string,
  server: string,
  sid: string,
  steps = 0,
): Promise<Trajectory> {
  let found: Trajectory | null = null;
  await expect
    .poll(
      async () => {
        const res = await fetch(`${base}/api/trajectories/by-session/${server}/${sid}`);
        if (!res.ok) return -1;
        found = (await res.json()) as Trajectory;
        return found.steps.filter((s) => s.ok != null).length;
      },
      { timeout: 15_000 },
    )
    .toBeGreaterThanOrEqual(steps);
  return found!;
}

/** Imports `t` (a trajectory, as JSON) through the app's API at `base`; expects it taken. */
export async function importTrajectory(base: string, t: object): Promise<void> {
  const res = await fetch(`${base}/api/trajectories/import`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(t),
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

export interface NextProcess {
  base: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the app (its server entry, the build in NEXT_DIST_DIR) on a loopback port with its own data dir. */
export async function startNext(port: number, dataDir: string): Promise<NextProcess> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "lib/app-server/main.ts", "--port", String(port), "--host", "127.0.0.1"],
    {
      env: { ...process.env, PLAYGROUND_DATA_DIR: dataDir, ORS_SERVERS: "" },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const base = `http://127.0.0.1:${port}`;
  await expect
    .poll(
      async () => {
        if (child.exitCode !== null) throw new Error(`next start exited: ${stderr}`);
        return fetch(`${base}/api/ors/health`).then(
          (r) => r.status,
          () => 0,
        );
      },
      { timeout: 60_000, intervals: [250] },
    )
    .toBe(200);
  return {
    base,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((r) => child.once("exit", () => r()));
      process.kill(child.pid!, "SIGTERM");
      const timer = setTimeout(() => child.pid && process.kill(child.pid, "SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "traj-e2e-"));
}

/**
 * A test-only ORS server with one environment, `variant`, whose `say` tool behaves according to
 * `behaviour.version` read at call time: version "a" echoes the text with reward 1, version "b"
 * shouts it with reward 0.5. `stop` is the same in both. Switching the version between recording
 * and replay is "the environment changed since it was recorded".
 */
export async function startVariantServer(port = 0) {
  const behaviour = { version: "a" as "a" | "b" };
  const say = defineTool({
    description: "Say something back",
    input: z.object({ text: z.string() }),
    run: ({ text: s }) =>
      behaviour.version === "a"
        ? { blocks: [text(`you said ${s}`)], reward: 1 }
        : { blocks: [text(`you said ${s.toUpperCase()}!`)], reward: 0.5 },
  });
  const stop = defineTool({
    description: "End the episode",
    run: () => ({ blocks: [text("bye")], reward: 0, finished: true }),
  });
  const variant = defineEnvironment({
    name: "variant",
    description: "Test-only: behaviour switched at call time",
    splits: ["train"],
    listTasks: () => [{ id: 0 }],
    getPrompt: () => "Say something.",
    tools: { say, stop },
  });
  const handler = createOrsHandler([variant]);
  const served = await serveNode(handler, { port, host: "127.0.0.1" });
  return { behaviour, url: served.url, close: () => served.close() };
}
