// `npm run check -- <URL> [options]`: the ORS conformance check of any server (lib/cli/check-command.ts).
// Ctrl-C stops it (the sessions it created are still deleted) and exits 130. `--quality` loads the
// playground (its store, relay and runs): server modules, allowed under plain node first.
import { allowServerOnlyUnderNode } from "@/lib/app-server/server-only-hook";

await allowServerOnlyUnderNode();

const { checkCommand } = await import("@/lib/cli/check-command");
const { runInTerminal } = await import("@/lib/cli/io");
await runInTerminal(checkCommand);
