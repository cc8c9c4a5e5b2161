// `npm run test:golden -- <GOLDEN.jsonl>... --server URL [options]`: golden episodes replayed as
// regression tests (lib/cli/test-command.ts). Ctrl-C stops it (the session of the episode running
// is still deleted; the report and the JUnit file cover what ran) and exits 130.

import { runInTerminal } from "@/lib/cli/io";
import { testCommand } from "@/lib/cli/test-command";

await runInTerminal(testCommand);
