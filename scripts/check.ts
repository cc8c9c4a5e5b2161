// `npm run check -- <URL> [options]`: the ORS conformance check of any server (lib/cli/check-command.ts).
// Ctrl-C stops it (the sessions it created are still deleted) and exits 130.
import { checkCommand } from "@/lib/cli/check-command";

const stop = new AbortController();
process.once("SIGINT", () => stop.abort(new Error("interrupted (Ctrl-C)")));
const code = await checkCommand(process.argv.slice(2), {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  color: !!process.stdout.isTTY && !process.env.NO_COLOR,
  progress: !!process.stderr.isTTY,
  env: process.env,
  signal: stop.signal,
});
process.exitCode = stop.signal.aborted ? 130 : code;
