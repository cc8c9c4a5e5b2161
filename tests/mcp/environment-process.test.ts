// An environment module built with defineMcpEnvironment, written as an author writes one (it imports
// `ors-playground/sdk`) in a folder outside the repository, served by `ors-playground serve --env`
// as a real process: `check --strict` on it finds nothing, an ORS client plays it, and stopping the
// server leaves none of its MCP children behind.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkCommand } from "@/lib/cli/check-command";
import { BIN, orsAt, type Proc, start, tempDir } from "../environments/helpers";
import { adderModule, FIXTURE_SERVER } from "../fixtures/mcp-server/env-module";
import { waitUntil } from "../support/wait";
import { FIXTURE_TOOLS, PROCESS_TEST_MS } from "./helpers";

const tmp = tempDir("ors-mcp-env-");
let server: Proc;
let base = "";

/** The fixture MCP servers running now, anywhere (their command line names the fixture). */
function fixtureServers(): number[] {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, "utf8").includes(FIXTURE_SERVER);
      } catch {
        return false;
      }
    })
    .map(Number);
}

beforeAll(async () => {
  writeFileSync(path.join(tmp.dir, "adder-env.ts"), adderModule());
  server = start([BIN, "serve", "--env", "./adder-env.ts", "--port", "0"], {
    cwd: tmp.dir,
    env: { ORS_PING_INTERVAL_MS: "500", ORS_IDLE_TIMEOUT_MS: "5000" },
  });
  base = (await server.waitFor(/ORS host listening on (http:\/\/127\.0\.0\.1:\d+)/, 120_000))[1]!;
}, 150_000);
afterAll(async () => {
  await server.stop();
  tmp.remove();
});

describe("an MCP server as an environment, served by `serve --env`", () => {
  it(
    "is an ORS environment: listed with the server's tools and the extra submit, and played",
    async () => {
      // The lines after the first may come in a later chunk of the child's output.
      await server.waitFor(/From \.\/adder-env\.ts: adder/, 10_000);
      const ors = orsAt(base);
      expect(await ors.get("/list_environments")).toEqual(["adder"]);
      const tools = (await ors.get("/adder/tools")) as { tools: { name: string }[] };
      expect(tools.tools.map((t) => t.name)).toEqual([...FIXTURE_TOOLS, "submit"]);
      const sid = await ors.episode("adder", "train", 1);
      expect(await ors.get("/adder/prompt", sid)).toEqual([
        { type: "text", text: "What is 3 + 13? Use add, then submit the sum.", detail: null },
      ]);
      expect(await ors.call("adder", sid, "add", { a: 3, b: 13 })).toMatchObject({
        ok: true,
        output: { blocks: [{ text: "16" }], reward: 0.5 },
      });
      expect(await ors.call("adder", sid, "submit", { sum: 16 })).toMatchObject({
        ok: true,
        output: { reward: 1, finished: true },
      });
      expect((await ors.post("/delete", {}, sid)).status).toBe(200);
    },
    PROCESS_TEST_MS,
  );

  it(
    "passes the strict conformance check",
    async () => {
      let out = "";
      let err = "";
      const code = await checkCommand(
        [
          base,
          "--strict",
          "--tool",
          "add",
          "--input",
          '{"a": 1, "b": 2}',
          "--idle-timeout",
          "5000",
          "--json",
        ],
        {
          stdout: (s) => {
            out += s;
          },
          stderr: (s) => {
            err += s;
          },
          env: {},
        },
      );
      const report = JSON.parse(out) as {
        summary: { passed: boolean };
        results: { id: string; outcome: string; waived?: boolean; observed?: string }[];
      };
      const findings = report.results.filter((r) => r.outcome !== "pass" && r.outcome !== "not-exercised");
      expect(
        findings.map((r) => `${r.id}: ${r.outcome}${r.waived ? " (waived)" : ""}`),
        err,
      ).toEqual([]);
      expect(code).toBe(0);
      expect(report.summary.passed).toBe(true);
    },
    PROCESS_TEST_MS,
  );

  it(
    "leaves no MCP server running once the sessions are gone and the host stops",
    async () => {
      await waitUntil(
        "the check's sessions ended (idle limit 5 s)",
        () => fixtureServers().length === 0,
        30_000,
      );
      const sid = await orsAt(base).episode("adder", "test", 0);
      await waitUntil("the new session's server started", () => fixtureServers().length === 1, 30_000);
      expect(sid).toBeTruthy();
      expect(await server.stop()).toBe(0);
      await waitUntil("every MCP server gone with the host", () => fixtureServers().length === 0, 15_000);
    },
    PROCESS_TEST_MS,
  );
});
