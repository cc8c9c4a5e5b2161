// `npm run serve -- --port 8080 [--host 127.0.0.1]`: the ORS host on node:http, without Next.js,
// serving the built-in environments with limits from ORS_* environment variables.
import { register } from "node:module";

register("./server-only-hook.mjs", import.meta.url);

const { runServe } = await import("./serve-main");
await runServe(process.argv.slice(2));
