// `npm run test:golden -- <GOLDEN.jsonl>... --server URL [options]`: golden episodes replayed as
// regression tests (lib/cli/test-command.ts). Ctrl-C stops it (the session of the episode running
// is still deleted; the report and the JUnit file cover what ran) and exits 130.
import { testCommand } from "@/lib/cli/test-command";

const stop = new AbortController();
process.once("SIGINT", () => stop.abort(new Error("interrupted (Ctrl-C)")));
const code = await testCommand(process.argv.slice(2), {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  color: !!process.stdout.isTTY && !process.env.NO_COLOR,
  progress: !!process.stderr.isTTY,
  env: process.env,
  signal: stop.signal,
});
process.exitCode = stop.signal.aborted ? 130 : code;
