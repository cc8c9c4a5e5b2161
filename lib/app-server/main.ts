// The app's server entry as a command (`npm start`, `npm run dev`): parses the arguments, starts
// lib/app-server/app-server.ts and prints the URL to open (with its access token) and what else a
// user needs. Run under plain node with tsx: `node --import tsx lib/app-server/main.ts [--dev]`.
import { allowServerOnlyUnderNode } from "./server-only-hook";

await allowServerOnlyUnderNode();

const { APP_SERVER_USAGE, parseAppServerArgs } = await import("./args");
// What a spawned server gets: the environment as the user started the playground, before the
// settings below are written into it.
const baseEnv = { ...process.env };
let args: ReturnType<typeof parseAppServerArgs>;
try {
  args = parseAppServerArgs(process.argv.slice(2), process.env);
} catch (err) {
  console.error((err as Error).message);
  process.exit(2);
}
if (args.help) {
  console.log(APP_SERVER_USAGE);
  process.exit(0);
}
// Before Next and React load: they pick their builds by NODE_ENV.
(process.env as Record<string, string>).NODE_ENV = args.dev ? "development" : "production";
if (!args.dev) (await import("./source-maps")).sourceMapsOffForProduction();

const { startAppServer } = await import("./app-server");
const { settleBeforeExit } = await import("@/lib/playground");
// An environment's stray promise must not bring the playground down.
process.on("unhandledRejection", (e) => console.error("[app-server] unhandled rejection:", e));

// Lines about spawned servers (ready, exited, restarting) wait for the banner, then follow it.
let bannerShown = false;
const early: string[] = [];
const say = (line: string) => {
  if (bannerShown) console.log(line);
  else early.push(line);
};
const app = await startAppServer({
  host: args.host,
  port: args.port,
  dev: args.dev,
  spawn: { servers: args.spawn, baseEnv, say },
}).catch((err: Error) => {
  console.error(`could not start the playground: ${err.message}`);
  process.exit(1);
});

const mode = app.dev ? "development mode" : "production build";
console.log(`ORS Playground (${mode}) on ${app.url}`);
if (app.token) console.log(`  Open: ${app.openUrl}`);
for (const line of app.accessNotice.lines) console.log(`  ${line}`);
console.log(`  ORS host for ORS clients: ${app.url}/api/ors (and at the root: ${app.url})`);
{
  // What is hosted, and what reloads it (lib/environments): ORS_ENVS, and envs/ in development.
  const { describeEnvironmentSet } = await import("@/lib/environments/source");
  const source = app.playground.environments;
  const { builtin, modules } = describeEnvironmentSet(source.current());
  for (const [file, names] of modules) console.log(`  From ${file}: ${names.join(", ")}`);
  if (builtin.length) console.log(`  Built-in environments: ${builtin.join(", ")}`);
  if (source.watching.length) console.log(`  Reloaded when saved: ${source.watching.join(", ")}`);
}
const { serverHref } = await import("@/lib/routes");
for (const server of app.playground.spawned.list()) {
  const run = server.status();
  console.log(
    `  Runs ${run.name}: ${run.command} (in ${run.cwd}); its log: ${app.url}${serverHref(run.name)}`,
  );
}
if (app.playground.storage.kind === "postgres")
  console.log(`  Trajectories, runs and added servers: ${app.playground.storage.where} (shared by replicas)`);
if (app.accessNotice.warning) {
  // Loud: on stderr, framed, and last, where it is seen.
  const rule = "!".repeat(78);
  console.error(`\n${rule}\n${app.accessNotice.warning}\n${rule}\n`);
}

bannerShown = true;
for (const line of early) console.log(line);

let stopping = false;
const stop = (signal: string) => {
  if (stopping) {
    // Asked again while stopping (Ctrl-C twice): what the recorder holds is written first.
    console.log(`${signal} again: exiting once what is being recorded is written`);
    void settleBeforeExit().finally(() => process.exit(1));
    return;
  }
  stopping = true;
  console.log(`${signal}: stopping`);
  app.close().then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
};
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("SIGINT", () => stop("SIGINT"));
