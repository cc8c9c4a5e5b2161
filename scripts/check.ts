// `npm run check -- <URL> [options]`: the ORS conformance check of any server (lib/cli/check-command.ts).
// Ctrl-C stops it (the sessions it created are still deleted) and exits 130.
import { checkCommand } from "@/lib/cli/check-command";
import { runInTerminal } from "@/lib/cli/io";

await runInTerminal(checkCommand);
