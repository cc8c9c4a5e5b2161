// The body of scripts/serve.ts, loaded after the `server-only` resolve hook is in place: runs the
// standalone host (lib/cli/serve-command.ts) until SIGINT/SIGTERM, then exits with its code.
import { serveCommand } from "@/lib/cli/serve-command";

export async function runServe(argv: string[]): Promise<void> {
  const stop = new AbortController();
  let stopping = false;
  const onSignal = () => {
    // A second signal while stopping: give up waiting.
    if (stopping) process.exit(1);
    stopping = true;
    stop.abort();
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  // An environment's stray promise must not bring the server down.
  process.on("unhandledRejection", (e) => console.error("[ors-host] unhandled rejection:", e));
  const code = await serveCommand(argv, {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    env: process.env,
    signal: stop.signal,
  });
  process.exit(code);
}
