// `ors-playground serve --workers N` as a real process for the scale tests: started with the nginx the
// test run found (tests/support/nginx.ts), its start-up lines read (base URL, each worker's pid,
// nginx's pid and run folder), and stopped by its PID.

import { BIN, type Proc, REPO, start } from "../environments/helpers";
import { alive } from "../support/processes";

export interface ScaledHost {
  url: string;
  proc: Proc;
  /** Worker pids by index, as printed at start (and after each restart). */
  workerPids(): number[];
  nginxPid: number;
  runDir: string;
  /** Every pid this host started that is still alive. */
  livePids(): number[];
}

/** Starts `serve --workers N` on a free port; resolves once its start-up lines are printed. */
export async function startScaled(
  nginx: string,
  workers: number,
  o: { env?: Record<string, string>; args?: string[]; cwd?: string } = {},
): Promise<ScaledHost> {
  const proc = start(
    [BIN, "serve", "--workers", String(workers), "--port", "0", "--nginx", nginx, ...(o.args ?? [])],
    { cwd: o.cwd ?? REPO, env: o.env },
  );
  const [, url] = await proc.waitFor(/listening on (http:\/\/\S+) /, 120_000);
  const [, nginxPid, conf] = await proc.waitFor(/nginx: pid (\d+) \(.*\), config (\S+)\/nginx\.conf/);
  const workerPids = () => {
    const pids: number[] = [];
    for (const m of proc.out().matchAll(/worker (\d+): pid (\d+)/g)) pids[Number(m[1])] = Number(m[2]);
    return pids;
  };
  const seen = new Set<number>([Number(nginxPid), ...workerPids()]);
  return {
    url: url!,
    proc,
    workerPids() {
      for (const p of workerPids()) seen.add(p);
      return workerPids();
    },
    nginxPid: Number(nginxPid),
    runDir: conf!,
    livePids() {
      for (const p of workerPids()) seen.add(p);
      return [...seen].filter(alive);
    },
  };
}

/** Polls `fn` until it returns true (or `timeoutMs` passes: false). */
export async function until(fn: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await fn()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}
