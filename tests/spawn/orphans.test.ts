// A spawned server does not outlive the playground: when the playground's process dies of an
// uncaught error, its exit hook stops the server's group; when it is killed outright (SIGKILL, no
// hook runs), the orphan guard sees its pipe close and stops the group. Real processes throughout.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { alive } from "../support/processes";
import { waitUntil } from "../support/wait";

const REPO = path.resolve(__dirname, "../..");
const HARNESS = path.join(__dirname, "fixtures", "supervise.ts");
const started: number[] = [];
let dir = "";

/** The stand-in playground; resolves with it and the PIDs of its server and the server's child. */
async function startHarness(mode: "wait" | "throw") {
  dir = mkdtempSync(path.join(os.tmpdir(), "ors-orphans-"));
  const env: Record<string, string | undefined> = { ...process.env };
  delete env.NODE_ENV;
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", HARNESS, mode, dir], {
    cwd: REPO,
    stdio: ["ignore", "pipe", "pipe"],
    env: env as NodeJS.ProcessEnv,
  });
  let out = "";
  child.stdout!.on("data", (d) => {
    out += d;
  });
  child.stderr!.on("data", (d) => {
    out += d;
  });
  await waitUntil(
    `READY from the harness:\n${out}`,
    () => /READY \d+ \d+/.test(out) || child.exitCode !== null,
    60_000,
  );
  const m = /READY (\d+) (\d+)/.exec(out);
  if (!m) throw new Error(`the harness did not start its server:\n${out}`);
  const server = Number(m[1]);
  const grandchild = Number(m[2]);
  started.push(server, grandchild);
  return { child, server, grandchild, out: () => out };
}

afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone, as it should be
    }
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("spawned servers when the playground dies", () => {
  it("are stopped by the exit hook when the playground dies of an uncaught error", async () => {
    const h = await startHarness("throw");
    expect(alive(h.server)).toBe(true);
    await waitUntil("the harness's crash", () => h.child.exitCode !== null, 20_000);
    expect(h.out()).toContain("the playground crashed");
    await waitUntil("the server's end", () => !alive(h.server) && !alive(h.grandchild), 10_000);
  });

  it("are stopped by the orphan guard when the playground is killed with SIGKILL", async () => {
    const h = await startHarness("wait");
    expect(alive(h.server) && alive(h.grandchild)).toBe(true);
    h.child.kill("SIGKILL");
    await waitUntil("the harness's end", () => h.child.signalCode !== null, 10_000);
    await waitUntil("the server's end", () => !alive(h.server) && !alive(h.grandchild), 10_000);
  });
});
