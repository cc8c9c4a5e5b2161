// `npm run serve -- [--env ./envs.ts] [--port 8080] [--host 127.0.0.1]`: the ORS host on node:http,
// without Next.js, serving the built-in environments or an author's module (lib/cli/serve-command.ts),
// with limits from ORS_* environment variables.
import { allowServerOnlyUnderNode } from "@/lib/app-server/server-only-hook";

await allowServerOnlyUnderNode();

const { runServe } = await import("./serve-main");
await runServe(process.argv.slice(2));
