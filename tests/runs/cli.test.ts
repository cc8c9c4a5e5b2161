// `ors-playground run` as the real command (bin/ors-playground.mjs, a child process) against real
// servers on loopback — the standalone host and the reference-shaped server — with the script and
// model policies: the summary, --json, --junit, --min-success and the exit codes, the run and the
// server recorded in the data folder the app reads. Usage mistakes in process.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "@/lib/cli/run-command";
import { createPlayground } from "@/lib/playground";
import { openStore } from "@/lib/store/sqlite/store";
import { captureIo, flags, runBin } from "../cli/helpers";
import { type RunningModelServer, startModelServer } from "../fixtures/model-server/spawn";
import { type RunningReferenceServer, startReferenceServer } from "../fixtures/reference-server/spawn";
import { type SpawnedServer, spawnOrsServer, unusedPort } from "../relay/helpers";
import { FIXTURES, tempDir } from "./helpers";

const KEY = "sk-cli-test-51f0aa7e";

let host: SpawnedServer;
let ref: RunningReferenceServer;
let model: RunningModelServer;

beforeAll(async () => {
  [host, ref, model] = await Promise.all([
    spawnOrsServer(),
    startReferenceServer({ setupMs: 5 }),
    startModelServer(),
  ]);
});

afterAll(async () => {
  await Promise.all([host?.stop(), ref?.stop(), model?.stop()]);
});

/** The flags that play math's test split `tasks` with the oracle script. */
const mathOracle = (tasks: string) =>
  flags({ env: "math", split: "test", tasks, policy: "script", script: `${FIXTURES}/math-oracle.ts` });

/** `ors-playground run <args>`, the real command. */
const cli = (args: string[], env: Record<string, string> = {}) => runBin(["run", ...args], { env });

describe("run from the command line", () => {
  it("plays math with a script, writes the summary and JUnit, and sets the exit code by --min-success", async () => {
    const dir = tempDir("runs-cli-");
    const out = path.join(dir, "out");
    fs.mkdirSync(out);
    const args = [host.url, ...mathOracle("0-9"), "--concurrency", "3"];
    const env = { PLAYGROUND_DATA_DIR: dir };
    const pass = await cli(
      [
        ...args,
        "--json",
        path.join(out, "a.json"),
        "--junit",
        path.join(out, "a.xml"),
        "--min-success",
        "0.8",
      ],
      env,
    );
    expect(pass.stderr).toContain(
      `added the server ${host.url} to the playground as "127-0-0-1-${new URL(host.url).port}"`,
    );
    expect(pass.code).toBe(0);
    expect(pass.stdout).toMatch(
      /success rate 80\.0% of 10 scored \(reward ≥ 1\), mean reward 0\.8 \(95% CI /,
    );
    expect(pass.stdout).toMatch(/outcomes: 10 scored\n/);
    // Durations in ms or seconds, never "0:00".
    expect(pass.stdout).toMatch(/duration: median \d+(\.\d)? (ms|s), p90 \d+(\.\d)? (ms|s)\n/);
    const summary = JSON.parse(fs.readFileSync(path.join(out, "a.json"), "utf8"));
    expect(summary).toMatchObject({
      runId: summary.id,
      status: "done",
      server: `127-0-0-1-${new URL(host.url).port}`,
      env: "math",
      split: "test",
      episodes: 10,
      completed: 10,
      successRate: 0.8,
      passAtK: { "1": 0.8 },
    });
    const xml = fs.readFileSync(path.join(out, "a.xml"), "utf8");
    expect(xml).toMatch(/<testsuites name="ORS run [^"]+" tests="10" failures="2" errors="0"/);
    expect(xml).toMatch(
      /<testcase classname="run\.127-0-0-1-\d+\.math\.test" name="task 5"[^>]*>\s*<failure message="0 of 1 attempts succeeded/,
    );
    // The run and its server are where the app reads them.
    const servers = JSON.parse(fs.readFileSync(path.join(dir, "servers.json"), "utf8"));
    expect(servers.userServers).toEqual([{ name: summary.server, url: host.url }]);
    const store = openStore({ dir, retention: { maxCount: 0, maxAgeDays: 0 } });
    try {
      expect(await store.getRun(summary.id)).toMatchObject({ status: "done", server: summary.server });
      expect((await store.list({ run: summary.id })).total).toBe(10);
    } finally {
      await store.close();
    }
    // Below the bar: exit 1; the same server keeps its name.
    const fail = await cli([...args, "--min-success", "0.9"], env);
    expect(fail.code).toBe(1);
    expect(fail.stderr).toMatch(/the success rate 80\.0% is below --min-success 90\.0%/);
    expect(fail.stderr).not.toMatch(/added the server/);
  }, 90_000);

  it("plays the reference server's farm with a model, the key read from the variable named", async () => {
    const dir = tempDir("runs-cli-");
    const json = path.join(dir, "s.json");
    const r = await cli(
      [
        ref.url,
        "--env",
        "farmplanner",
        "--split",
        "train",
        "--tasks",
        "0",
        "--model-url",
        model.baseUrl,
        "--model",
        "oracle",
        "--api-key-env",
        "FIXTURE_KEY",
        "--json",
        json,
      ],
      { PLAYGROUND_DATA_DIR: dir, FIXTURE_KEY: KEY },
    );
    expect(r.code).toBe(0);
    const s = JSON.parse(fs.readFileSync(json, "utf8"));
    expect(s).toMatchObject({
      status: "done",
      completed: 1,
      meanReward: 4.8,
      policy: {
        kind: "model",
        endpoint: "cli",
        baseUrl: model.baseUrl,
        apiKeyEnv: "FIXTURE_KEY",
        model: "oracle",
      },
    });
    expect((await model.stats()).authorization).toContain(`Bearer ${KEY}`);
    for (const text of [
      r.stdout,
      r.stderr,
      ...fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f)).toString("latin1")),
    ])
      expect(text).not.toContain(KEY);
  });

  it("cannot run: a server that is down, an unknown environment — exit 2 saying why", async () => {
    const dir = tempDir("runs-cli-");
    const port = await unusedPort();
    const down = await cli(
      [`http://127.0.0.1:${port}`, "--env", "math", "--split", "test", "--policy", "random"],
      { PLAYGROUND_DATA_DIR: dir },
    );
    expect(down.code).toBe(2);
    expect(down.stderr).toMatch(/cannot list the tasks of math\/test: .*unreachable/);
    const unknown = await cli([host.url, "--env", "nope", "--split", "test", "--policy", "random"], {
      PLAYGROUND_DATA_DIR: dir,
    });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/nope/);
  }, 60_000);
});

describe("on a terminal", () => {
  it("draws a progress bar on stderr, in process", async () => {
    const { out, io } = captureIo();
    const code = await runCommand([host.url, ...mathOracle("0-5")], {
      ...io,
      progress: true,
      env: { PLAYGROUND_DATA_DIR: tempDir("runs-cli-") },
    });
    expect(code).toBe(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the progress bar redraws its line with ESC [2K
    expect(out.stderr).toMatch(/\r\u001b\[2K\[#+\.*\] \d\/6 · 0 errored · \d running/);
    expect(out.stderr).toMatch(/\[#{24}\] 6\/6 · 0 errored · 0 running/);
    expect(out.stdout).toMatch(
      /^Run r\S+: script math-oracle\.ts on math\/test at 127-0-0-1-\d+ \(http:\/\/127\.0\.0\.1:\d+\): done/,
    );
  });
});

describe("usage mistakes (exit 2)", () => {
  const usage = async (args: string[], env: Record<string, string> = {}) => {
    const { out, io } = captureIo();
    const code = await runCommand(args, {
      ...io,
      env: { PLAYGROUND_DATA_DIR: tempDir("runs-cli-"), ...env },
    });
    return { code, ...out };
  };
  it.each([
    [[], /give the server's URL/],
    [["ftp://x"], /must be http/],
    [["http://127.0.0.1:1", "--split", "test", "--policy", "random"], /--env is required/],
    [["http://127.0.0.1:1", "--env", "math", "--split", "test"], /give --policy/],
    [["http://127.0.0.1:1", "--env", "math", "--split", "test", "--policy", "model"], /needs --model ID/],
    [
      ["http://127.0.0.1:1", "--env", "math", "--split", "test", "--model", "m"],
      /--model-url URL or --model-endpoint NAME/,
    ],
    [
      [
        "http://127.0.0.1:1",
        "--env",
        "math",
        "--split",
        "test",
        "--model",
        "m",
        "--model-url",
        "http://x/v1",
        "--api-key-env",
        "NOT_SET",
      ],
      /\$NOT_SET is not set/,
    ],
    [
      ["http://127.0.0.1:1", "--env", "math", "--split", "test", "--policy", "random", "--script", "x.ts"],
      /--script goes with --policy script/,
    ],
    [
      ["http://127.0.0.1:1", "--env", "math", "--split", "test", "--policy", "random", "--min-success", "2"],
      /--min-success: expected a number ≥ 0 ≤ 1/,
    ],
    [
      [
        "http://127.0.0.1:1",
        "--env",
        "math",
        "--split",
        "test",
        "--policy",
        "random",
        "--json",
        "/nope/x.json",
      ],
      /--json: the folder \/nope does not exist/,
    ],
    [
      ["http://127.0.0.1:1", "--env", "math", "--split", "test", "--policy", "telepathy"],
      /--policy: model, random, replay or script/,
    ],
  ])("%j", async (args, message) => {
    const r = await usage(args as string[]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message as RegExp);
    expect(r.stderr).toContain("usage: run <server-url>");
  });

  it("--help prints the usage", async () => {
    const r = await usage(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("--min-success RATE");
  });
});

describe("the server's name", () => {
  it("reuses the name a running app knows the URL by, and a kept server's spelled with localhost", async () => {
    const dir = tempDir("runs-cli-");
    const port = new URL(host.url).port;
    // A running app on this store, which knows the server from its own ORS_SERVERS.
    const app = createPlayground(
      { PLAYGROUND_DATA_DIR: dir, ORS_SERVERS: `shared=${host.url}` },
      { scriptRoots: null },
    );
    try {
      await app.ready;
      await app.store.announce({
        url: "http://127.0.0.1:4555",
        servers: [{ name: "shared", url: host.url }],
      });
      const args = (url: string) => [
        url,
        ...flags({ env: "math", split: "test", tasks: "0", policy: "random" }),
      ];
      const { out, io } = captureIo();
      expect(
        await runCommand(args(`http://localhost:${port}`), { ...io, env: { PLAYGROUND_DATA_DIR: dir } }),
      ).toBe(0);
      expect(out.stderr).toMatch(/the playground at http:\/\/127\.0\.0\.1:4555 knows .* as "shared"/);
      const runs = await app.store.listRuns();
      expect(runs.items.map((r) => r.server)).toEqual(["shared"]);
      // No second entry for the same server.
      expect(fs.existsSync(path.join(dir, "servers.json"))).toBe(false);
    } finally {
      await app.close();
    }
    // A server kept in servers.json as localhost: the same one as 127.0.0.1.
    fs.writeFileSync(
      path.join(dir, "servers.json"),
      JSON.stringify({ userServers: [{ name: "mine", url: `http://localhost:${port}` }] }),
    );
    const { out, io } = captureIo();
    expect(
      await runCommand([host.url, "--env", "math", "--split", "test", "--tasks", "0", "--policy", "random"], {
        ...io,
        env: { PLAYGROUND_DATA_DIR: dir },
      }),
    ).toBe(0);
    expect(out.stderr).not.toMatch(/added the server/);
    const kept = JSON.parse(fs.readFileSync(path.join(dir, "servers.json"), "utf8")) as {
      userServers: unknown[];
    };
    expect(kept.userServers).toHaveLength(1);
  }, 60_000);
});
