// The config file of `start` (ors-playground.config.json, or --config FILE): validated with errors
// that name the key and the file, turned into the variables the app reads, under the environment
// and the command line (command line > environment > file), with a warning for secrets in a file
// others can read. Real files in a temporary folder; the CLI as a real process for the exit codes.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applyConfigFile, ConfigFileError, loadConfigFile } from "@/lib/cli/config-file";
import { pageToOpen, parseStartArgs } from "@/lib/cli/start-command";
import { BIN, run } from "../environments/helpers";

let dir = "";
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "ors-config-"));
  mkdirSync(path.join(dir, "server"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (config: unknown, name = "ors-playground.config.json", mode = 0o600) => {
  const file = path.join(dir, name);
  writeFileSync(file, typeof config === "string" ? config : JSON.stringify(config, null, 2));
  chmodSync(file, mode);
  return file;
};

/** The message of the ConfigFileError that loading `config` throws. */
const errorOf = (config: unknown): string => {
  write(config);
  try {
    loadConfigFile(undefined, dir);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigFileError);
    return (e as Error).message;
  }
  throw new Error("no error");
};

const FULL = {
  $schema: "https://example.invalid/ors-playground.config.schema.json",
  port: 4100,
  host: "127.0.0.1",
  dataDir: "./.playground",
  servers: {
    py: "http://127.0.0.1:8080",
    staging: { url: "https://ors.example.com", apiKeyEnv: "STAGING_KEY", idleTimeoutMs: 600000 },
  },
  spawn: {
    my_env: {
      command: "python my_env.py --port {port}",
      cwd: "server",
      watch: ["server"],
      ignore: ["*.csv"],
      env: { MODE: "dev" },
      readyTimeoutMs: 60000,
    },
    other: ["node", "other.js", "--port", "{port}"],
  },
  models: {
    "local-vllm": "http://127.0.0.1:8000/v1",
    cloud: { baseUrl: "https://api.example.com/v1", apiKey: "sk-file" },
  },
  access: { token: "a-token-from-the-config-file", allowedHosts: ["devbox.lan"], allowRemoteServers: true },
};

describe("the config file", () => {
  it("feeds the variables the app reads, paths resolved against its folder", () => {
    const file = write(FULL);
    const loaded = loadConfigFile(undefined, dir)!;
    expect(loaded.file).toBe(file);
    const env: Record<string, string | undefined> = { STAGING_KEY: "sk-staging" };
    const layer = applyConfigFile(loaded, env);
    expect(env).toEqual({
      STAGING_KEY: "sk-staging",
      PORT: "4100",
      PLAYGROUND_DATA_DIR: path.join(dir, ".playground"),
      ORS_SERVERS: "py=http://127.0.0.1:8080,staging=https://ors.example.com",
      ORS_SERVER_API_KEY_STAGING: "sk-staging",
      ORS_SERVER_IDLE_TIMEOUT_MS_STAGING: "600000",
      PLAYGROUND_MODELS: "local-vllm=http://127.0.0.1:8000/v1,cloud=https://api.example.com/v1",
      PLAYGROUND_MODEL_API_KEY_CLOUD: "sk-file",
      PLAYGROUND_TOKEN: "a-token-from-the-config-file",
      PLAYGROUND_ALLOWED_HOSTS: "devbox.lan",
      PLAYGROUND_ALLOW_REMOTE_SERVERS: "1",
    });
    expect(layer).toEqual({
      host: "127.0.0.1",
      spawn: [
        {
          name: "my_env",
          command: "python my_env.py --port {port}",
          cwd: path.join(dir, "server"),
          watch: [path.join(dir, "server")],
          ignore: ["*.csv"],
          env: { MODE: "dev" },
          readyTimeoutMs: 60000,
        },
        { name: "other", command: ["node", "other.js", "--port", "{port}"], cwd: dir, watch: [] },
      ],
      warnings: [],
    });
  });

  it("stays under the environment, and under the command line", () => {
    write(FULL);
    const env: Record<string, string | undefined> = {
      PORT: "5000",
      ORS_SERVERS: "staging=http://127.0.0.1:9999",
      PLAYGROUND_AUTH: "none",
      PLAYGROUND_MODELS: "cloud=http://127.0.0.1:8001/v1",
    };
    const args = parseStartArgs(["--server", "py=http://127.0.0.1:7000", "--host", "localhost"], env, dir);
    expect(args).toMatchObject({
      port: 5000,
      host: "localhost",
      config: path.join(dir, "ors-playground.config.json"),
    });
    // The command line's py, the environment's staging: the file's key for staging is not used.
    expect(env.ORS_SERVERS).toBe("py=http://127.0.0.1:7000,staging=http://127.0.0.1:9999");
    expect(env.ORS_SERVER_API_KEY_STAGING).toBeUndefined();
    expect(env.ORS_SERVER_IDLE_TIMEOUT_MS_STAGING).toBeUndefined();
    expect(env.PLAYGROUND_MODELS).toBe("cloud=http://127.0.0.1:8001/v1,local-vllm=http://127.0.0.1:8000/v1");
    expect(env.PLAYGROUND_MODEL_API_KEY_CLOUD).toBeUndefined();
    // PLAYGROUND_AUTH decides the token policy: the file's token is not used.
    expect(env.PLAYGROUND_TOKEN).toBeUndefined();
    expect(env.PLAYGROUND_DATA_DIR).toBe(path.join(dir, ".playground"));
    expect(parseStartArgs(["--port", "6000", "--data-dir", "d"], {}, dir)).toMatchObject({ port: 6000 });
  });

  it("adds --spawn to the file's spawned servers (the command line's wins a shared name)", () => {
    write({ spawn: { my_env: "python old.py", keep: "node keep.js --port {port}" } });
    const args = parseStartArgs(
      ["--spawn", "python my_env.py --port {port}", "--watch", ".", "--watch", "server"],
      {},
      dir,
    );
    expect(args.spawn).toEqual([
      { name: "keep", command: "node keep.js --port {port}", cwd: dir, watch: [] },
      {
        name: "my_env",
        command: "python my_env.py --port {port}",
        cwd: dir,
        watch: [dir, path.join(dir, "server")],
      },
    ]);
    expect(args.page).toBe("/");
    const one = parseStartArgs(
      ["--spawn", "./serve --port {port}", "--spawn-name", "mine"],
      {},
      path.join(dir, "server"),
    );
    expect(one).toMatchObject({ page: "/s/mine", spawn: [{ name: "mine" }] });
  });

  it('--restart on-failure (or the file\'s "restart") starts a crashed server again; anything else is refused', () => {
    write({ spawn: { keep: { command: "node keep.js", restart: "on-failure" } } });
    const args = parseStartArgs(["--spawn", "python my_env.py", "--restart", "on-failure"], {}, dir);
    expect(args.spawn).toEqual([
      { name: "keep", command: "node keep.js", cwd: dir, watch: [], restart: "on-failure" },
      { name: "my_env", command: "python my_env.py", cwd: dir, watch: [], restart: "on-failure" },
    ]);
    expect(() => parseStartArgs(["--spawn", "python my_env.py", "--restart", "always"], {}, dir)).toThrow(
      '--restart: expected never or on-failure, got "always"',
    );
    expect(() => parseStartArgs(["--restart", "on-failure"], {}, dir)).toThrow("--restart goes with --spawn");
  });

  it("opens the spawned server's page, else the one --server's, else home", () => {
    expect(pageToOpen({ spawned: ["my_env"], cliServers: ["py"] })).toBe("/s/my_env");
    expect(pageToOpen({ spawned: [], cliServers: ["py"] })).toBe("/s/py");
    expect(pageToOpen({ spawned: [], cliServers: ["a", "b"] })).toBe("/");
    expect(pageToOpen({ spawned: ["a", "b"], cliServers: [] })).toBe("/");
  });

  it("names the file and each bad key", () => {
    expect(errorOf({ sever: {}, servers: { py: { url: "http://x:1", apikey: "k" } } })).toBe(
      `ors-playground.config.json (${path.join(dir, "ors-playground.config.json")}) is not a valid config file:\n` +
        '  unknown key "apikey" in servers.py (known: url, apiKey, apiKeyEnv, idleTimeoutMs)\n' +
        '  unknown key "sever" (known: $schema, port, host, dataDir, servers, spawn, models, access)',
    );
    expect(errorOf({ spawn: { a: { comand: "x" } }, access: { auth: "nope", tokn: "t" } })).toMatch(
      /unknown key "comand" in spawn\.a \(known: command, cwd, watch, ignore, env, port, readyTimeoutMs, restart\)[\s\S]*access\.auth: expected "token" or "none"[\s\S]*unknown key "tokn" in access/,
    );
  });

  it("says what is wrong with a value, and where", () => {
    const lines = (config: unknown) =>
      errorOf(config)
        .split("\n")
        .slice(1)
        .map((l) => l.trim());
    expect(lines({ servers: { py: "ftp://x" } })).toEqual([
      'servers.py.url: must be an http:// or https:// URL, got "ftp://x"',
    ]);
    expect(lines({ servers: { Local: "http://x:1", py: 3 } })).toEqual([
      'servers.Local: server "Local": name must be 1-32 characters of a-z, 0-9, _ and -, starting with a letter or digit',
      'servers.py: expected a URL, or an object such as {"url": "http://127.0.0.1:8080"}',
    ]);
    expect(lines({ servers: { py: { url: "http://x:1", apiKey: "a", apiKeyEnv: "B" } } })).toEqual([
      "servers.py: give apiKey or apiKeyEnv, not both",
    ]);
    expect(lines({ spawn: { s: "python 'x.py" } })).toEqual([
      `spawn.s.command: unclosed ' quote in "python 'x.py"`,
    ]);
    expect(lines({ spawn: { s: { command: "x", port: 70000 } } })[0]).toMatch(/^spawn\.s\.port: /);
    expect(lines({ port: "3000" })[0]).toMatch(/^port: /);
    expect(lines({ access: { auth: "none", token: "t" } })).toEqual([
      'access: auth "none" and a token were both given: which one was meant?',
    ]);
    expect(lines({ servers: { py: { url: "http://x:1", apiKeyEnv: "not a var" } } })).toEqual([
      "servers.py.apiKeyEnv: must be the name of an environment variable (letters, digits, _)",
    ]);
    expect(lines([])).toEqual(["the file: expected a JSON object"]);
  });

  it("points at broken JSON, and at a --config file that is not there", () => {
    write('{\n  "port": 3000,\n}');
    expect(() => loadConfigFile(undefined, dir)).toThrow(
      /^ors-playground\.config\.json is not valid JSON \(line 3, column 1\): /,
    );
    expect(() => loadConfigFile("missing.json", dir)).toThrow(
      `--config missing.json: no such file (looked for ${path.join(dir, "missing.json")})`,
    );
    rmSync(path.join(dir, "ors-playground.config.json"));
    expect(loadConfigFile(undefined, dir)).toBeNull();
  });

  it("warns about secrets in a file others can read, and about variables it names that are not set", () => {
    write(
      { servers: { py: { url: "http://x:1", apiKey: "k" } }, access: { token: "t".repeat(20) } },
      undefined,
      0o644,
    );
    expect(loadConfigFile(undefined, dir)!.warnings).toEqual([
      "ors-playground.config.json holds secrets (servers.py.apiKey, access.token) and other users of this machine may read it (mode 644): run `chmod 600 ors-playground.config.json`, or name variables that hold them instead (apiKeyEnv, tokenEnv).",
    ]);
    write({ servers: { py: { url: "http://x:1", apiKey: "k" } } }, undefined, 0o600);
    expect(loadConfigFile(undefined, dir)!.warnings).toEqual([]);
    write({ models: { m: { baseUrl: "http://x:1/v1", apiKeyEnv: "NOT_SET_HERE" } } }, undefined, 0o644);
    const loaded = loadConfigFile(undefined, dir)!;
    expect(loaded.warnings).toEqual([]);
    expect(applyConfigFile(loaded, {}).warnings).toEqual([
      "ors-playground.config.json: models.m.apiKeyEnv names $NOT_SET_HERE, which is not set: no key is sent.",
    ]);
  });

  it("the CLI exits 2 for a bad config file or spawn flags, saying why", async () => {
    write({ servers: { py: { url: "http://127.0.0.1:1", extra: 1 } } }, "bad.json");
    const bad = await run([BIN, "--config", "bad.json"], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.err).toBe(
      `ors-playground: bad.json (${path.join(dir, "bad.json")}) is not a valid config file:\n  unknown key "extra" in servers.py (known: url, apiKey, apiKeyEnv, idleTimeoutMs)\n`,
    );
    const watch = await run([BIN, "--watch", "."], { cwd: dir });
    expect(watch.code).toBe(2);
    expect(watch.err).toMatch(/^ors-playground: --watch and --spawn-name go with --spawn\n/);
    const quote = await run([BIN, "--spawn", "python 'my_env.py"], { cwd: dir });
    expect(quote.code).toBe(2);
    expect(quote.err).toMatch(
      /^ors-playground: --spawn: unclosed ' quote in "python 'my_env\.py" \(e\.g\. --spawn "python my_env\.py --port \{port\}"\)\n/,
    );
    const clash = await run([BIN, "--server", "my_env=http://127.0.0.1:1", "--spawn", "python my_env.py"], {
      cwd: dir,
    });
    expect(clash.code).toBe(2);
    expect(clash.err).toMatch(
      /the spawned server "my_env" has the name of a configured server .*: give it another with --spawn-name/,
    );
  });
});
