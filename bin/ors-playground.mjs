#!/usr/bin/env node
// The `ors-playground` command (package.json "bin"; `npx ors-playground`). The package ships its
// server code as TypeScript: this registers tsx (with the package's own tsconfig, whatever folder the
// command runs in) and the `server-only` resolve hook, then runs lib/cli/main.ts. Ctrl-C / SIGTERM
// ask the running command to stop; a second one exits once what is being recorded is written.
import { register } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.env.TSX_TSCONFIG_PATH = path.join(root, "tsconfig.json");
await import("tsx");
// The package's own `@/...` imports (tsconfig "paths"): tsx maps them only outside node_modules, and
// an installed package is inside it. Registered after tsx, so tsx still finds the file's extension.
const rootUrl = pathToFileURL(`${root}/`).href;
const pathsHook = `const ROOT = ${JSON.stringify(rootUrl)};
export async function resolve(specifier, context, next) {
  if (specifier.startsWith("@/") && (context.parentURL ?? "").startsWith(ROOT)) return next(ROOT + specifier.slice(2), context);
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(pathsHook)}`);
const { allowServerOnlyUnderNode } = await import(
  pathToFileURL(path.join(root, "lib/app-server/server-only-hook.ts")).href
);
await allowServerOnlyUnderNode();
const { runCli } = await import(pathToFileURL(path.join(root, "lib/cli/main.ts")).href);

const stop = new AbortController();
let interrupted = false;
const onSignal = (signal) => {
  if (stop.signal.aborted) {
    // Asked again while stopping: what the playground's recorder holds is written first (10 s at most).
    const code = signal === "SIGINT" ? 130 : 143;
    import(pathToFileURL(path.join(root, "lib/playground.ts")).href)
      .then((m) => m.settleBeforeExit())
      .finally(() => process.exit(code));
    return;
  }
  interrupted = signal === "SIGINT";
  stop.abort(new Error(signal === "SIGINT" ? "interrupted (Ctrl-C)" : "terminated"));
};
process.on("SIGINT", () => onSignal("SIGINT"));
process.on("SIGTERM", () => onSignal("SIGTERM"));
// An environment's stray promise must not bring the server down.
process.on("unhandledRejection", (e) => console.error("[ors-playground] unhandled rejection:", e));

const argv = process.argv.slice(2);
const code = await runCli(argv, {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  env: process.env,
  signal: stop.signal,
  color: !!process.stdout.isTTY && !process.env.NO_COLOR,
  progress: !!process.stderr.isTTY,
});
// A check, a test or a run stopped by Ctrl-C ends with 130 (as scripts/check.ts); a server stopped by it with its own code.
const command = argv[0] ?? "start";
process.exit(interrupted && (command === "check" || command === "test" || command === "run") ? 130 : code);
