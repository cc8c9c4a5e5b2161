// `check` and `test` aimed at a playground's relay (`/api/servers/<name>`) that asks for its access
// token, as every playground does by default: `--token` (or PLAYGROUND_TOKEN) is sent as `Authorization:
// Bearer`; without it the relay answers 401 and nothing can be checked. The variable's token goes to
// relay URLs only: another server never sees it. A real playground (its relay, a temp data folder)
// behind the app's own request policy, on a loopback port.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkNodeRequest, writeAnswer } from "@/lib/app-server/node-http";
import { relayTarget } from "@/lib/app-server/relay-path";
import { accessTokenFor } from "@/lib/cli/access-token";
import { checkCommand, parseCheckArgs } from "@/lib/cli/check-command";
import { testCommand } from "@/lib/cli/test-command";
import { createOrsClient } from "@/lib/ors/client";
import { createPlayground, type Playground } from "@/lib/playground";
import { appPolicyFromEnv } from "@/lib/security/policy-config";
import { toJsonl } from "@/lib/trajectory/jsonl";
import { tempDir } from "../episodes/helpers";
import { startHttpServer } from "../relay/helpers";
import { captureIo } from "./helpers";

const TOKEN = "cli-token-test-not-a-secret";
let pg: Playground;
let app: Awaited<ReturnType<typeof startHttpServer>>;
let relay = "";

beforeAll(async () => {
  const dir = tempDir("cli-token-");
  pg = createPlayground({ PLAYGROUND_DATA_DIR: dir, ORS_SERVERS: "" });
  await pg.ready;
  const policy = appPolicyFromEnv({ PLAYGROUND_TOKEN: TOKEN });
  app = await startHttpServer(0, (req, res) => {
    const refused = checkNodeRequest(req, policy);
    if (refused) return writeAnswer(req, res, refused);
    const target = relayTarget(req.method ?? "GET", (req.url ?? "/").split("?")[0]!);
    if (!target) {
      res.writeHead(404).end();
      return;
    }
    void pg.relay.handleNode(req, res, target.name, target.orsPath);
  });
  relay = `${app.url}/api/servers/local`;
});

afterAll(async () => {
  await app?.close();
  await pg?.close();
});

const check = async (argv: string[], env: Record<string, string> = {}) => {
  const { out, io } = captureIo();
  const code = await checkCommand([...argv, "--json", "--ping-time", "0"], { ...io, env });
  return {
    code,
    report: JSON.parse(out.stdout) as { results: { id: string; outcome: string; observed: string }[] },
  };
};

describe("check and test against a playground's relay that asks for its token", () => {
  it("check: without a token every request is refused (401); with --token or PLAYGROUND_TOKEN the server is checked", async () => {
    const without = await check([relay]);
    expect(without.code).toBe(1);
    expect(without.report.results.find((r) => r.id === "health")?.observed).toMatch(/\b401\b/);
    for (const run of [
      await check([relay, "--token", TOKEN]),
      await check([relay], { PLAYGROUND_TOKEN: TOKEN }),
    ]) {
      expect(run.report.results.find((r) => r.id === "health")?.outcome).toBe("pass");
      // No check was refused (a status 401, not the digits inside a random id).
      expect(run.report.results.filter((r) => r.outcome !== "pass" && /\b401\b/.test(r.observed))).toEqual(
        [],
      );
    }
  });

  it("test: replays a golden episode through the relay with --token", async () => {
    const client = createOrsClient({ baseUrl: relay, headers: { authorization: `Bearer ${TOKEN}` } });
    const { sid } = await client.createSession();
    await client.create(sid, { env_name: "guess", split: "train", index: 0 });
    await client.prompt("guess", sid);
    await client.callTool("guess", sid, { name: "guess", input: { number: 50 } });
    await client.delete(sid);
    await pg.recorder.idle();
    const summary = await pg.store.findBySession("local", sid);
    const golden = path.join(tempDir("cli-token-golden-"), "golden.jsonl");
    writeFileSync(golden, toJsonl([(await pg.store.get(summary!.id))!]));
    const run = async (argv: string[]) => {
      const { out, io } = captureIo();
      return { code: await testCommand([golden, "--server", relay, ...argv], { ...io, env: {} }), out };
    };
    const refused = await run([]);
    expect(refused.code).toBe(1);
    expect(refused.out.stdout).toMatch(/401/);
    const passed = await run(["--token", TOKEN]);
    expect(passed.out.stderr).toBe("");
    expect(passed.code).toBe(0);
  });

  it("sends PLAYGROUND_TOKEN to a playground's relay URL only; --token to the URL given", () => {
    const env = { PLAYGROUND_TOKEN: TOKEN };
    expect(accessTokenFor("http://127.0.0.1:3000/api/servers/py", undefined, env)).toBe(TOKEN);
    expect(accessTokenFor("http://127.0.0.1:8080", undefined, env)).toBeUndefined();
    expect(accessTokenFor("http://127.0.0.1:3000/api/ors", undefined, env)).toBeUndefined();
    expect(accessTokenFor("http://127.0.0.1:8080", "given", env)).toBe("given");
    expect(parseCheckArgs(["http://127.0.0.1:8080"], env)?.token).toBeUndefined();
    expect(parseCheckArgs(["http://h:1/api/servers/x", "--token", "t"], {})?.token).toBe("t");
    expect(() => parseCheckArgs(["http://h:1/api/servers/x", "--token", "t", "--quality"], {})).toThrow(
      /--token does not go with --quality/,
    );
    expect(() =>
      parseCheckArgs(
        [
          "http://h:1/api/servers/x",
          "--token",
          "t",
          "--probe",
          "--oracle",
          "tests/runs/fixtures/math-oracle.ts",
        ],
        {},
      ),
    ).toThrow(/--token does not go with --probe/);
  });
});
