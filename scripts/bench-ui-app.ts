// The UI benchmarks' app (bench-ui.ts, bench-ui-ab.ts): the server entry started as `npm start` runs
// it (its own process group, stopped by its PID), waiting for it, and episodes opened and closed
// through the relay from node, as a page's visitor would find them.
import { type ChildProcess, spawn } from "node:child_process";

export function run(cmd: string, cmdArgs: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, cmdArgs, { cwd, env, stdio: ["ignore", "inherit", "inherit"] });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`${cmd} ${cmdArgs.join(" ")} exited ${code}`)),
    );
  });
}

/** Starts the app's server entry (as `npm start`) in its own process group so the whole tree stops with one signal. */
export function startNext(port: number, env: NodeJS.ProcessEnv, cwd: string): ChildProcess {
  return spawn(
    process.execPath,
    ["--import", "tsx", "lib/app-server/main.ts", "--port", String(port), "--host", "127.0.0.1"],
    {
      cwd,
      env,
      detached: true,
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
}

export function stopGroup(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    const pid = child.pid;
    if (child.exitCode !== null || !pid) return resolve();
    const timer = setTimeout(() => {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {}
      resolve();
    }, 5000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    try {
      process.kill(-pid, "SIGTERM");
    } catch {
      clearTimeout(timer);
      resolve();
    }
  });
}

export async function waitForHealth(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`next start exited with ${child.exitCode}`);
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`server did not answer ${url} within ${timeoutMs} ms`);
}
