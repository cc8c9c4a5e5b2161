// Spawned servers on real processes: started without a shell on a free port (or through /bin/sh when
// the command needs one), ready once /health answers, their output in the log, a crash recorded with
// its exit code (and a command that is not found), restarts on changes of content under --watch
// (with backoff when they come fast), and stops by process group, SIGKILL for one that ignores SIGTERM.
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { invalidServerName } from "@/lib/registry/registry";
import type { ManagedServer } from "@/lib/spawn/managed-server";
import { createServerSupervisor, type ServerSupervisor, SpawnSetupError } from "@/lib/spawn/supervisor";
import type { ProcessExit } from "@/lib/spawn/types";
import { alive } from "../support/processes";
import { waitUntil } from "../support/wait";

const TINY = path.join(__dirname, "fixtures", "tiny-ors.mjs");
const NODE = process.execPath;

let dir = "";
const supervisors: ServerSupervisor[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "ors-spawn-"));
  writeFileSync(path.join(dir, "message.txt"), "first\n");
});
afterEach(async () => {
  await Promise.all(supervisors.splice(0).map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
});

interface Seen {
  lost: { server: string; error: string }[];
  exits: { exit: ProcessExit; lastErrors: string[] }[];
  said: string[];
}

async function supervise(
  specs: Parameters<typeof createServerSupervisor>[0],
  extra: Partial<Parameters<typeof createServerSupervisor>[1]> = {},
) {
  const seen: Seen = { lost: [], exits: [], said: [] };
  const sup = await createServerSupervisor(specs, {
    baseEnv: { ...process.env, PLAYGROUND_TOKEN: "secret-of-the-playground" },
    say: (line) => seen.said.push(line),
    invalidName: invalidServerName,
    orphanGuard: false,
    debounceMs: 100,
    stopGraceMs: 2_000,
    ...extra,
  });
  supervisors.push(sup);
  sup.onSessionsLost((server, error) => {
    seen.lost.push({ server, error });
  });
  return { sup, seen };
}

const texts = (s: ManagedServer, stream?: string) =>
  s.log
    .snapshot()
    .lines.filter((l) => !stream || l.stream === stream)
    .map((l) => l.text);

/** Waits for `check` (20 s unless told): spawned processes start and stop in their own time. */
const until = (what: string, check: () => boolean, timeoutMs = 20_000) => waitUntil(what, check, timeoutMs);

describe("spawned servers", () => {
  it("starts one on a free port without a shell, ready when /health answers, its output logged", async () => {
    const { sup, seen } = await supervise([
      {
        name: "tiny",
        command: `"${NODE}" ${TINY} --port {port} --message-file message.txt --delay-ms 300`,
        cwd: dir,
      },
    ]);
    const tiny = sup.get("tiny")!;
    expect(tiny.port).toBeGreaterThan(0);
    expect(sup.entries()).toEqual([{ name: "tiny", url: `http://127.0.0.1:${tiny.port}` }]);
    expect(sup.notReady("tiny")).toMatch(/^is stopped/);
    await sup.start();
    expect(tiny.status().state).toBe("starting");
    expect(sup.notReady("tiny")).toBe(
      "is starting: it has not answered GET /health yet (its log is on the server's page)",
    );
    await sup.settled(20_000);
    const status = tiny.status();
    expect(status).toMatchObject({ state: "ready", shell: null, cwd: dir, exit: null, restarts: 0 });
    expect(status.readyAt! - status.startedAt!).toBeGreaterThanOrEqual(300);
    expect(sup.notReady("tiny")).toBeNull();
    expect(await (await fetch(`${tiny.url}/list_environments`)).json()).toEqual(["tiny"]);
    await until("the stderr line", () => texts(tiny, "stderr").length > 0);
    expect(texts(tiny, "stdout")).toEqual([
      `tiny listening on ${tiny.port} with message first (PORT=${tiny.port})`,
    ]);
    expect(texts(tiny, "stderr")).toEqual(["a line on stderr"]);
    const system = texts(tiny, "system");
    expect(system[0]).toBe(
      `starting: ${NODE} ${TINY} --port ${tiny.port} --message-file message.txt --delay-ms 300  (in ${dir}; PORT=${tiny.port})`,
    );
    expect(system[1]).toMatch(
      new RegExp(`^ready: answers GET /health at http://127\\.0\\.0\\.1:${tiny.port} \\(\\d+\\.\\d s\\)$`),
    );
    expect(seen.said).toEqual([
      expect.stringMatching(/^\[tiny\] ready at http:\/\/127\.0\.0\.1:\d+ \(\d+\.\d s\)$/),
    ]);
    const pid = status.pid!;
    await sup.stop();
    expect(alive(pid)).toBe(false);
    expect(tiny.status()).toMatchObject({ state: "stopped", pid: null });
    expect(tiny.status().exit?.description).toBe("exited with code 0");
    expect(texts(tiny, "system").at(-1)).toBe("stopped (exited with code 0)");
    expect(seen.lost).toEqual([]);
  });

  it("does not give the playground's token to the server", async () => {
    const { sup } = await supervise([
      {
        name: "env-dump",
        command: [
          NODE,
          "-e",
          "console.log('token=' + (process.env.PLAYGROUND_TOKEN ?? 'unset') + ' x=' + process.env.X)",
        ],
        cwd: dir,
        env: { X: "from the spec" },
      },
    ]);
    await sup.start();
    await sup.settled(20_000);
    const s = sup.get("env-dump")!;
    await until("its output", () => texts(s, "stdout").length > 0);
    expect(texts(s, "stdout")).toEqual(["token=unset x=from the spec"]);
  });

  it("records a crash at start with its exit code and the end of its stderr", async () => {
    const { sup, seen } = await supervise([
      {
        name: "crashy",
        command: `"${NODE}" -e "console.error('boom: bad config'); process.exit(3)" {port}`,
        cwd: dir,
      },
    ]);
    await sup.start();
    await sup.settled(20_000);
    const s = sup.get("crashy")!;
    expect(s.status()).toMatchObject({
      state: "exited",
      pid: null,
      exit: { code: 3, signal: null, description: "exited with code 3" },
    });
    // Without --restart on-failure it stays down, and each place that shows the crash says so.
    const stays =
      "It stays down until you press Restart on its page (start it with --restart on-failure to have it started again by itself).";
    expect(sup.notReady("crashy")).toBe(
      `is not running: it exited with code 3 (its log is on the server's page). ${stays}`,
    );
    expect(texts(s, "stderr")).toEqual(["boom: bad config"]);
    expect(texts(s, "system").at(-1)).toBe(`exited with code 3. ${stays}`);
    expect(seen.said).toEqual([
      "[crashy] exited with code 3; the end of its stderr:",
      "[crashy]   boom: bad config",
      `[crashy] ${stays}`,
    ]);
    expect(s.status().restartPolicy).toBe("never");
    // It never answered /health: there were no sessions to lose.
    expect(seen.lost).toEqual([]);
  });

  it("ends the sessions of a server that crashes while ready, saying so", async () => {
    const { sup, seen } = await supervise([
      { name: "late-crash", command: [NODE, TINY, "--port", "{port}", "--crash-after-ms", "1500"], cwd: dir },
    ]);
    await sup.start();
    await sup.settled(20_000);
    const s = sup.get("late-crash")!;
    expect(s.status().state).toBe("ready");
    await until("the crash", () => s.status().state === "exited");
    expect(s.status().exit).toMatchObject({ code: 7, description: "exited with code 7" });
    await until("the sessions' end", () => seen.lost.length > 0);
    expect(seen.lost).toEqual([
      {
        server: "late-crash",
        error:
          'server exited: server "late-crash" exited with code 7 while this episode ran, and its sessions are gone. Its log is on the server\'s page.',
      },
    ]);
    expect(seen.exits).toEqual([]);
    expect(seen.said.slice(1)).toEqual([
      "[late-crash] exited with code 7; the end of its stderr:",
      "[late-crash]   a line on stderr",
      "[late-crash]   Traceback (most recent call last):",
      "[late-crash]   RuntimeError: the tiny server gave up",
      "[late-crash] It stays down until you press Restart on its page (start it with --restart on-failure to have it started again by itself).",
    ]);
  });

  it("with --restart on-failure, starts a server that crashed again, waiting longer as it keeps failing", async () => {
    const { sup, seen } = await supervise(
      [
        {
          name: "phoenix",
          command: [NODE, TINY, "--port", "{port}", "--crash-after-ms", "300"],
          cwd: dir,
          restart: "on-failure",
        },
      ],
      // No free restart: the second waits 2 s after the first, more than a crash takes here.
      { freeRestarts: 0 },
    );
    await sup.start();
    const s = sup.get("phoenix")!;
    expect(s.status().restartPolicy).toBe("on-failure");
    await until("two restarts after crashes", () => s.status().restarts >= 2, 30_000);
    const system = texts(s, "system");
    expect(system).toContain("exited with code 7. The playground starts it again (--restart on-failure).");
    expect(system).toContain("restarting: it exited with code 7");
    // The second crash within the minute waits its backoff, saying so.
    expect(system.some((l) => /^restarting in \d\.\d s \(it exited with code 7\)/.test(l))).toBe(true);
    expect(seen.said).toContain("[phoenix] The playground starts it again (--restart on-failure).");
    await s.stop();
    const after = s.status().restarts;
    await new Promise((r) => setTimeout(r, 1_500));
    expect(s.status()).toMatchObject({ state: "stopped", restarts: after });
  });

  it("says so when the command is not found (without a shell, and through one)", async () => {
    const { sup } = await supervise([
      { name: "missing", command: "no-such-program-xyz --port {port}", cwd: dir },
      { name: "missing-sh", command: "cd . && no-such-program-xyz --port {port}", cwd: dir },
    ]);
    await sup.start();
    await sup.settled(20_000);
    expect(sup.get("missing")!.status()).toMatchObject({
      state: "exited",
      exit: {
        code: null,
        description: `could not start: command not found: no-such-program-xyz (is it installed, and on PATH? or is the folder ${dir} missing?)`,
      },
    });
    const sh = sup.get("missing-sh")!;
    expect(sh.status()).toMatchObject({
      state: "exited",
      shell: "& (background or &&)",
      exit: { code: 127, description: "exited with code 127 (the shell did not find the command)" },
    });
    expect(texts(sh, "system")[0]).toMatch(
      /through \/bin\/sh -c, as the command uses & \(background or &&\)\)$/,
    );
    expect(texts(sh, "stderr").join("\n")).toMatch(/no-such-program-xyz: .*not found/);
  });

  it("restarts on a change of content under --watch, ending the sessions; a touch restarts nothing", async () => {
    const { sup, seen } = await supervise([
      {
        name: "watched",
        command: [NODE, TINY, "--port", "{port}", "--message-file", "message.txt"],
        cwd: dir,
        watch: [dir],
      },
    ]);
    await sup.start();
    await sup.settled(20_000);
    const s = sup.get("watched")!;
    const firstPid = s.status().pid!;
    await until("its output", () => texts(s, "stdout").length > 0);

    utimesSync(path.join(dir, "message.txt"), new Date(), new Date(Date.now() + 10_000));
    writeFileSync(path.join(dir, "message.txt"), "first\n");
    await new Promise((r) => setTimeout(r, 800));
    expect(s.status()).toMatchObject({ state: "ready", pid: firstPid, restarts: 0 });

    writeFileSync(path.join(dir, "message.txt"), "second\n");
    await until("the restart", () => s.status().restarts === 1 && s.status().state === "ready");
    expect(s.status().pid).not.toBe(firstPid);
    expect(alive(firstPid)).toBe(false);
    await until("the new output", () => texts(s, "stdout").length === 2);
    expect(texts(s, "stdout")[1]).toMatch(/with message second/);
    expect(texts(s, "system")).toEqual([
      expect.stringMatching(/^starting: /),
      expect.stringMatching(/^ready: /),
      "restarting: message.txt changed",
      "stopped (exited with code 0)",
      expect.stringMatching(/^starting: /),
      expect.stringMatching(/^ready: /),
    ]);
    expect(seen.lost).toEqual([
      {
        server: "watched",
        error:
          'server restarted: message.txt changed, so the playground started server "watched" again and the sessions on it are gone. Start a new episode (Restart on this task) to use the new process.',
      },
    ]);
    expect(seen.said).toContain("[watched] restarting: message.txt changed");
  });

  it("backs off when restarts come fast, folding the reasons given meanwhile", async () => {
    const { sup } = await supervise([{ name: "fast", command: [NODE, TINY, "--port", "{port}"], cwd: dir }], {
      freeRestarts: 1,
    });
    await sup.start();
    await sup.settled(20_000);
    const s = sup.get("fast")!;
    // The second restart within a minute waits until 1 s after the first began.
    const t0 = Date.now();
    await s.restart("first");
    expect(s.status().restarts).toBe(1);
    const second = s.restart("second");
    await until("the backoff", () => s.status().restartAt !== null);
    const third = s.restart("third");
    expect(s.status().restartAt! - t0).toBeGreaterThanOrEqual(1000);
    await Promise.all([second, third]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(s.status()).toMatchObject({ restarts: 2, restartAt: null });
    const system = texts(s, "system");
    expect(system).toContainEqual(
      expect.stringMatching(/^restarting in \d\.\d s \(second\): it restarted 1 times in the last minute$/),
    );
    expect(system).toContain("restarting: second (and 1 more)");
  });

  it("stops the whole process group; SIGKILL for a server that ignores SIGTERM", async () => {
    const { sup } = await supervise(
      [
        {
          name: "stubborn",
          command: [NODE, TINY, "--port", "{port}", "--ignore-term", "--grandchild"],
          cwd: dir,
        },
      ],
      { stopGraceMs: 500 },
    );
    await sup.start();
    await sup.settled(20_000);
    const s = sup.get("stubborn")!;
    await until("the grandchild", () => texts(s, "stdout").some((t) => t.startsWith("grandchild")));
    const grandchild = Number(
      texts(s, "stdout")
        .find((t) => t.startsWith("grandchild"))!
        .split(" ")[1],
    );
    const pid = s.status().pid!;
    expect(alive(grandchild)).toBe(true);
    await sup.stop();
    expect(alive(pid)).toBe(false);
    await until("the grandchild's end", () => !alive(grandchild), 5_000);
    expect(texts(s, "system").slice(-2)).toEqual([
      "did not stop within 0.5 s of SIGTERM: SIGKILL",
      "stopped (was killed by SIGKILL)",
    ]);
  });

  it("refuses what it cannot start, naming the server", async () => {
    const make = (spec: Partial<Parameters<typeof createServerSupervisor>[0][number]>) =>
      createServerSupervisor([{ name: "x", command: "node a.js", cwd: dir, ...spec }], {
        baseEnv: {},
        invalidName: invalidServerName,
      });
    await expect(make({ name: "Bad Name" })).rejects.toThrow(
      new SpawnSetupError(
        'spawned server "Bad Name": name must be 1-32 characters of a-z, 0-9, _ and -, starting with a letter or digit',
      ),
    );
    await expect(make({ command: "node 'a.js" })).rejects.toThrow(
      `spawned server "x": unclosed ' quote in "node 'a.js"`,
    );
    await expect(make({ cwd: path.join(dir, "nope") })).rejects.toThrow(
      `spawned server "x": the folder to run it in, ${path.join(dir, "nope")}, does not exist`,
    );
    await expect(make({ watch: [path.join(dir, "src")] })).rejects.toThrow(
      `spawned server "x": --watch ${path.join(dir, "src")}: no such folder`,
    );
    await expect(
      createServerSupervisor(
        [
          { name: "a", command: "x", cwd: dir },
          { name: "a", command: "y", cwd: dir },
        ],
        { baseEnv: {} },
      ),
    ).rejects.toThrow('two spawned servers are named "a"');
  });
});
