// The configuration module (lib/config.ts): each setting read and checked in one place; a bad value
// is an error that names the variable and what it expects, and the parts built elsewhere forgive it.
// The process's environment is read there and in the entry points only: every other part is handed
// its settings.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, readSetting, SETTINGS, settingOrDefault } from "@/lib/config";
import { createPlayground } from "@/lib/playground";
import { readSource, sourceFiles } from "./support/source-files";

describe("loadConfig", () => {
  it("gives the defaults when nothing is set (or only blanks)", () => {
    const c = loadConfig({ PLAYGROUND_MAX_EXCHANGES: "  " });
    expect(c).toEqual({
      dataDir: path.resolve(".data"),
      relayTimeoutMs: 60_000,
      idleTimeoutMs: null,
      maxStepBytes: 4 * 1024 * 1024,
      exchangeLimit: { count: 1000, chars: 8 * 1024 * 1024 },
      retention: { maxCount: 5000, maxAgeDays: 30 },
      keepAliveIdleMs: 900_000,
      runs: { worker: true, leaseMs: 30_000, workerSlots: 32 },
    });
  });

  it("reads every setting, typed", () => {
    const c = loadConfig({
      PLAYGROUND_DATA_DIR: "/tmp/x",
      PLAYGROUND_RELAY_TIMEOUT_MS: "1500",
      PLAYGROUND_IDLE_TIMEOUT_S: "90",
      PLAYGROUND_MAX_STEP_BYTES: "10",
      PLAYGROUND_MAX_EXCHANGES: "0",
      PLAYGROUND_MAX_EXCHANGE_CHARS: "2048",
      PLAYGROUND_MAX_TRAJECTORIES: "7",
      PLAYGROUND_MAX_TRAJECTORY_AGE_DAYS: "0.5",
      PLAYGROUND_KEEPALIVE_IDLE_MS: "60000",
      PLAYGROUND_RUN_WORKER: "0",
      PLAYGROUND_RUN_LEASE_MS: "5000",
      PLAYGROUND_RUN_WORKER_SLOTS: "4",
    });
    expect(c).toEqual({
      dataDir: "/tmp/x",
      relayTimeoutMs: 1500,
      idleTimeoutMs: 90_000,
      maxStepBytes: 16 * 1024, // the smallest cap kept
      exchangeLimit: { count: 0, chars: 2048 },
      retention: { maxCount: 7, maxAgeDays: 0.5 },
      keepAliveIdleMs: 60_000,
      runs: { worker: false, leaseMs: 5000, workerSlots: 4 },
    });
  });

  it("names each bad variable, what it expects and what it got", () => {
    let err: unknown;
    try {
      loadConfig({ PLAYGROUND_RELAY_TIMEOUT_MS: "soon", PLAYGROUND_MAX_EXCHANGES: "-1" });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    expect(message).toContain(
      'PLAYGROUND_RELAY_TIMEOUT_MS: expected a whole number of milliseconds above 0, got "soon"',
    );
    expect(message).toContain('PLAYGROUND_MAX_EXCHANGES: expected a whole number, 0 or more, got "-1"');
  });

  it("refuses what each setting does not take", () => {
    const bad: [keyof typeof SETTINGS, string][] = [
      ["PLAYGROUND_RELAY_TIMEOUT_MS", "1.5"],
      ["PLAYGROUND_RELAY_TIMEOUT_MS", "0"],
      ["PLAYGROUND_IDLE_TIMEOUT_S", "-3"],
      ["PLAYGROUND_MAX_STEP_BYTES", "4MB"],
      ["PLAYGROUND_MAX_EXCHANGE_CHARS", "1e400"],
      ["PLAYGROUND_MAX_TRAJECTORIES", "many"],
      ["PLAYGROUND_MAX_TRAJECTORY_AGE_DAYS", "-1"],
    ];
    for (const [name, value] of bad) {
      expect(() => readSetting({ [name]: value }, name), `${name}=${value}`).toThrow(
        new RegExp(`^${name}: expected .*, got "${value.replace(/[.+]/g, "\\$&")}"$`),
      );
      expect(settingOrDefault({ [name]: value }, name)).toEqual(SETTINGS[name].fallback);
    }
  });

  it("stops the playground's start on a bad value", () => {
    expect(() => createPlayground({ PLAYGROUND_MAX_STEP_BYTES: "lots" })).toThrow(
      /PLAYGROUND_MAX_STEP_BYTES: expected a number of bytes above 0, got "lots"/,
    );
  });
});

describe("where the process's environment is read", () => {
  /** The modules of lib/ that may read it, and why. */
  const ENTRY_POINTS: Record<string, string> = {
    "lib/config.ts": "the configuration: processEnv() is the one reader",
    "lib/playground.ts": "the composition root builds the process's playground from it (getPlayground)",
    "lib/app-server/main.ts": "the server entry's command (npm start, npm run dev)",
    "lib/app-server/app-server.ts": "hands the request policy's settings to Next's proxy.ts in this process",
    "lib/cli/io.ts": "the CLI's terminal: the command's environment",
    "lib/episodes/playwright-export.ts": "only as text of the spec it writes, which its reader runs",
  };

  it("is read in lib/config.ts and the entry points only", () => {
    const readers = sourceFiles(["lib", "app", "components"]).filter((f) =>
      /\bprocess\.env\b|\bprocessEnv\(\)/.test(readSource(f)),
    );
    expect(readers.sort()).toEqual(Object.keys(ENTRY_POINTS).sort());
  });
});
