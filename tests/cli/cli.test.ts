// The `ors-playground` command line (bin/ors-playground.mjs, run as a real process): help, version,
// the commands it hands over to, and the mistakes it refuses with exit code 2 and a clear message;
// and how `start` turns its flags into the app's settings.
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { UsageError } from "@/lib/cli/args";
import { defaultDataDir, parseServerFlag, parseStartArgs } from "@/lib/cli/start-command";
import { BIN, REPO, run } from "../environments/helpers";

const cli = (...args: string[]) => run([BIN, ...args], { cwd: os.tmpdir() });
const version = (JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as { version: string })
  .version;

describe("ors-playground", () => {
  it("--version and --help", async () => {
    expect(await cli("--version")).toEqual({ code: 0, out: `${version}\n`, err: "" });
    const help = await cli("--help");
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^usage: ors-playground \[command\] \[options\]/);
    for (const command of ["start", "serve", "check URL", "test FILE"])
      expect(help.out).toContain(`  ${command}`);
  });

  it("--help of each command", async () => {
    expect((await cli("start", "--help")).out).toMatch(
      /^usage: ors-playground \[start\] \[options\][\s\S]*--server NAME=URL/,
    );
    expect((await cli("--port", "1", "--help")).out).toMatch(/^usage: ors-playground \[start\]/);
    expect((await cli("serve", "--help")).out).toMatch(/^usage: serve \[--env \.\/envs\.ts\]/);
    expect((await cli("check", "--help")).out).toMatch(/^usage: check <URL> \[options\]/);
    expect((await cli("help", "serve")).out).toMatch(/^usage: serve/);
    expect((await cli("run", "--help")).out).toMatch(/^usage: run <server-url> --env NAME --split NAME/);
  });

  it("refuses an unknown command or option with exit code 2", async () => {
    expect(await cli("deploy")).toEqual({
      code: 2,
      out: "",
      err: 'ors-playground: unknown command "deploy" (commands: start, serve, check, test, run, worker, diff, stub, mcp, help; see ors-playground --help)\n',
    });
    const flag = await cli("--browser");
    expect(flag.code).toBe(2);
    expect(flag.err).toMatch(/^ors-playground: unknown option --browser\n\nusage: ors-playground \[start\]/);
    const server = await cli("--server", "py");
    expect(server.code).toBe(2);
    expect(server.err).toMatch(
      /^ors-playground: --server: expected NAME=URL \(e\.g\. py=http:\/\/127\.0\.0\.1:8080\), got "py"/,
    );
    const only = await cli("--only");
    expect(only.code).toBe(2);
    expect(only.err).toMatch(/^ors-playground: --only and --no-watch go with --env/);
    expect((await cli("start", "extra")).err).toMatch(
      /unexpected argument "extra" \(a server is given as --server NAME=URL\)/,
    );
  });

  it("hands check and test their arguments (their own usage and errors, exit code 2)", async () => {
    const r = await cli("check");
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/give the server's URL, e\.g\. check http:\/\/127\.0\.0\.1:8080/);
    expect((await cli("test", "--help")).out).toMatch(/^usage: test <GOLDEN\.jsonl>\.\.\. --server URL/);
    const t = await cli("test", "golden.jsonl");
    expect(t.code).toBe(2);
    expect(t.err).toMatch(/^test: /);
  });

  it("says clearly when there is no production build to start", async () => {
    const r = await run([BIN, "--port", "0"], {
      cwd: os.tmpdir(),
      env: { NEXT_DIST_DIR: ".next-missing" },
    });
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `ors-playground: no production build in ${path.join(REPO, ".next-missing")}. In a clone of the repository, run \`npm run build\` first.\n`,
    );
  });
});

describe("start's settings", () => {
  it("adds --server entries to ORS_SERVERS and sets the module and the data folder", () => {
    const env: Record<string, string | undefined> = { ORS_SERVERS: "a=http://127.0.0.1:1", HOME: "/home/u" };
    const args = parseStartArgs(
      [
        "--server",
        "py=http://127.0.0.1:8080",
        "--server=ts=http://localhost:9000",
        "--env",
        "./envs.ts",
        "--only",
        "-p",
        "4000",
      ],
      env,
    );
    expect(args).toEqual({
      port: 4000,
      host: "127.0.0.1",
      help: false,
      open: false,
      spawn: [],
      config: null,
      warnings: [],
      page: "/",
    });
    expect(parseStartArgs(["--open", "--host", "0.0.0.0"], {})).toMatchObject({
      open: true,
      host: "0.0.0.0",
    });
    expect(env).toMatchObject({
      // The command line first: a name it shares with the environment is the command line's.
      ORS_SERVERS: "py=http://127.0.0.1:8080,ts=http://localhost:9000,a=http://127.0.0.1:1",
      ORS_ENVS: "./envs.ts",
      ORS_ENVS_ONLY: "1",
      PLAYGROUND_DATA_DIR: defaultDataDir(env),
    });
  });

  it("keeps the data in a per-user folder unless told, PORT as the default port", () => {
    expect(defaultDataDir({ XDG_DATA_HOME: "/x/data" })).toBe("/x/data/ors-playground");
    expect(defaultDataDir({})).toBe(path.join(os.homedir(), ".local/share/ors-playground"));
    const env: Record<string, string | undefined> = { PORT: "4100", PLAYGROUND_DATA_DIR: "rel/data" };
    expect(parseStartArgs([], env).port).toBe(4100);
    expect(env.PLAYGROUND_DATA_DIR).toBe(path.resolve("rel/data"));
    const flag: Record<string, string | undefined> = { PLAYGROUND_DATA_DIR: "/ignored" };
    parseStartArgs(["--data-dir", "/d"], flag);
    expect(flag.PLAYGROUND_DATA_DIR).toBe("/d");
  });

  it("refuses servers it could not use", () => {
    expect(() => parseServerFlag("py=ftp://x")).toThrow(
      "--server py: the URL must start with http:// or https://",
    );
    expect(() => parseServerFlag("py=not a url")).toThrow(UsageError);
    expect(() => parseServerFlag("local=http://127.0.0.1:1")).toThrow(
      /--server "local=http:\/\/127\.0\.0\.1:1": /,
    );
    expect(() => parseStartArgs(["--server", "a=http://x:1", "--server", "a=http://y:2"], {})).toThrow(
      '--server: two servers named "a"',
    );
    expect(() => parseStartArgs(["--port", "70000"], {})).toThrow(
      '--port must be a port number (0-65535), got "70000"',
    );
    expect(() => parseStartArgs([], { PORT: "x" })).toThrow('PORT must be a port number (0-65535), got "x"');
  });
});
