// `serve --workers N`: the ORS host as N processes behind nginx (docs/team-scale.md, "The host scaled
// out"). Finds nginx, starts the workers (lib/scale/supervisor.ts) and nginx on a generated config
// in a run folder (lib/scale/nginx.ts), prints the base URL and every pid, and stops it all on Ctrl-C;
// a watchdog stops it all if this process dies first.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { DEFAULT_HOST_OPTIONS, hostOptionsFromEnv } from "@/lib/ors/host";
import { findNginx, NGINX_MISSING, type RunningNginx, startNginx } from "@/lib/scale/nginx";
import { workerSessionPrefix } from "@/lib/scale/nginx-config";
import { startRunWatchdog } from "@/lib/scale/processes";
import { Supervisor, WorkerStartError } from "@/lib/scale/supervisor";
import { isLoopbackAddress, listenHostNames, newSecret, urlHost } from "@/lib/security/listen";
import { parseHostList } from "@/lib/security/policy-config";
import { type CommandIo, untilAborted } from "./io";

export interface ServeWorkersArgs {
  workers: number;
  host: string;
  port: number;
  /** --nginx: the binary to use instead of the one found. */
  nginx?: string;
}

/** How long nginx waits for a worker's next bytes: far above the 10 s ping of a running tool call. */
const READ_TIMEOUT_S = 15 * 60;

/** Runs N workers behind nginx until `io.signal` aborts. Exit codes: 2 no nginx, 1 could not start. */
export async function serveWorkers(args: ServeWorkersArgs, io: CommandIo): Promise<number> {
  const env = io.env;
  const bin = findNginx(args.nginx, { pathVar: env.PATH ?? "" });
  if (!bin) {
    io.stderr(
      `serve: ${args.nginx !== undefined ? `--nginx ${args.nginx}: not an executable file.\n` : ""}${NGINX_MISSING}\n`,
    );
    return 2;
  }
  let options: typeof DEFAULT_HOST_OPTIONS;
  let allowedHosts: string[];
  try {
    options = { ...DEFAULT_HOST_OPTIONS, ...hostOptionsFromEnv(env) };
    allowedHosts = parseHostList(env.PLAYGROUND_ALLOWED_HOSTS, "PLAYGROUND_ALLOWED_HOSTS");
  } catch (e) {
    io.stderr(`serve: ${(e as Error).message}\n`);
    return 1;
  }
  const { host } = args;
  let port = args.port;
  try {
    port = await freePort(host, port);
  } catch (e) {
    io.stderr(`serve: could not listen on ${host}:${args.port}: ${(e as Error).message}\n`);
    return 1;
  }

  // The workers listen on loopback behind nginx; they must accept the names clients use for nginx,
  // and off loopback they never run without an API key.
  const workerEnv: Record<string, string | undefined> = {
    ...env,
    PLAYGROUND_ALLOWED_HOSTS: [...allowedHosts, ...listenHostNames(host)].join(","),
  };
  const generatedKey = !isLoopbackAddress(host) && !options.apiKeys.length ? newSecret() : null;
  if (generatedKey) workerEnv.ORS_API_KEYS = generatedKey;

  const runDir = mkdtempSync(path.join(os.tmpdir(), "ors-serve-workers-"));
  // nginx's unprivileged workers (as root: nobody) reach their own folders inside, and list nothing.
  chmodSync(runDir, 0o711);
  const pidsFile = path.join(runDir, "pids");
  const groups = { workers: [] as number[], nginx: null as number | null };
  const writePids = () =>
    writeFileSync(pidsFile, [...groups.workers, ...(groups.nginx ? [groups.nginx] : [])].join("\n"));
  const watchdog = startRunWatchdog(pidsFile, runDir);
  const sessionIdBase = options.sessionIdPrefix;
  let nginx: RunningNginx | null = null;
  const supervisor = new Supervisor({
    workers: args.workers,
    sessionIdBase,
    env: workerEnv,
    cwd: io.cwd ?? process.cwd(),
    stdout: (line) => io.stdout(`${line}\n`),
    stderr: (line) => io.stderr(`${line}\n`),
    onMoved: () => nginx?.reload(upstreams()),
    onPids: (pids) => {
      groups.workers = pids;
      writePids();
    },
  });
  const upstreams = () => supervisor.workers.map((w) => ({ index: w.index, port: w.port }));
  const cleanUp = () => {
    watchdog.cancel();
    rmSync(runDir, { recursive: true, force: true });
  };

  try {
    await supervisor.start();
  } catch (e) {
    cleanUp();
    if (!(e instanceof WorkerStartError)) throw e;
    io.stderr(`serve: ${e.message}\n`);
    return 1;
  }
  for (let attempt = 1; !nginx; attempt++) {
    try {
      nginx = await startNginx(bin, {
        listen: { host, port },
        workers: upstreams(),
        runDir,
        sessionIdBase,
        maxBodyBytes: options.maxBodyBytes,
        readTimeoutS: READ_TIMEOUT_S,
        user: null,
      });
    } catch (e) {
      // A port picked for --port 0 may be taken by someone else before nginx binds it: pick again.
      if (args.port === 0 && attempt < 3 && /Address already in use/.test((e as Error).message)) {
        port = await freePort(host, 0);
        continue;
      }
      await supervisor.stop();
      cleanUp();
      io.stderr(`serve: nginx (${bin}) did not start on ${host}:${port}:\n${(e as Error).message}\n`);
      return 1;
    }
  }
  groups.nginx = nginx.pid;
  writePids();

  const url = `http://${urlHost(host)}:${port}`;
  const first = supervisor.workers[0]!.ready!;
  io.stdout(
    `ORS host: ${args.workers} worker${args.workers === 1 ? "" : "s"} behind nginx, listening on ${url} (environments: ${first.environments.join(", ")})\n`,
  );
  io.stdout(`  ORS base URL for clients: ${url}\n`);
  for (const w of supervisor.workers)
    io.stdout(
      `  worker ${w.index}: pid ${w.pid} on http://127.0.0.1:${w.port}, session ids ${workerSessionPrefix(sessionIdBase, w.index, w.restart)}…\n`,
    );
  io.stdout(`  nginx: pid ${nginx.pid} (${bin}), config ${path.join(runDir, "nginx.conf")}\n`);
  io.stdout(
    "  A session stays on the worker that created it: a worker that stops loses its own sessions (their requests answer 410) and is restarted\n",
  );
  for (const m of first.modules)
    io.stdout(
      `  From ${m.file}: ${m.environments.join(", ")}${m.watched ? " (every worker reloads it when you save it; sessions on the old code end)" : ""}\n`,
    );
  if (generatedKey)
    io.stdout(
      `  ${host} is not loopback and ORS_API_KEYS is unset: clients must send this generated key as X-API-Key:\n  ${generatedKey}\n`,
    );
  io.stdout("  Stop: Ctrl-C\n");

  // nginx going away on its own is the end of the front door: stop, saying why.
  const nginxDied = nginx.exited.then((how) => how);
  const outcome = await Promise.race([untilAborted(io.signal).then(() => null), nginxDied]);
  io.stdout("stopping\n");
  if (outcome !== null)
    io.stderr(`serve: nginx (pid ${nginx.pid}) stopped by itself (${outcome}):\n${nginx.errors()}\n`);
  await Promise.all([nginx.stop(), supervisor.stop()]);
  cleanUp();
  return outcome === null ? 0 : 1;
}

/** `port` when it is free on `host` (0: a free one, as the OS hands it out); else why not. */
function freePort(host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", (e: NodeJS.ErrnoException) =>
      reject(new Error(e.code === "EADDRINUSE" ? "the port is in use" : e.message)),
    );
    srv.listen(port, host.replace(/^\[(.*)\]$/, "$1"), () => {
      const chosen = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(chosen));
    });
  });
}
