// Test helpers of the runs: a playground of its own in a temp data folder (its built-in host, its
// store, its executor), and waiting for a run to settle.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPlayground, type Playground } from "@/lib/playground";

export interface TestPlayground {
  pg: Playground;
  dir: string;
  close(): Promise<void>;
}

export function tempDir(prefix = "runs-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A playground on `dir` (a new temp folder by default) with these variables. */
export function testPlayground(env: Record<string, string> = {}, dir = tempDir()): TestPlayground {
  // Infrastructure failures are played again after 50 ms, not seconds.
  const pg = createPlayground(
    { PLAYGROUND_DATA_DIR: dir, ...env },
    { scriptRoots: null, runRetryBaseMs: 50 },
  );
  return {
    pg,
    dir,
    async close() {
      await pg.close();
    },
  };
}

export const FIXTURES = path.join(__dirname, "fixtures");

/**
 * A run of `math` played by the sleepy script (a second per turn: a run that takes a while), on
 * `local`'s train split unless `o` says otherwise.
 */
export function sleepyRun(
  tasks: string,
  o: { concurrency?: number; timeoutMs?: number; server?: string; split?: string } = {},
) {
  return {
    server: "local",
    env: "math",
    split: "train",
    tasks,
    ...o,
    policy: { kind: "script" as const, module: `${FIXTURES}/sleepy.ts` },
  };
}
