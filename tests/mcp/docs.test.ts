// docs/mcp.md's command lines, run as printed by a real MCP client no one here wrote (MCP
// Inspector's CLI mode, the devDependency `npx` finds): the Claude Code line's server command, the
// mcpServers JSON of Claude Desktop and Cursor (through the Inspector's --config), and the
// Inspector's own lines. The HTTP lines name a playground on port 3000: here the bridge is served
// as the app serves it (/api/servers/<name>/mcp, behind the request policy and its token) on a free
// port, which is the one thing changed in them.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardListener } from "@/lib/app-server/node-http";
import { nodeListener } from "@/lib/mcp/node-http";
import { listenHttp } from "@/lib/ors/host";
import { appPathKind, createRequestPolicy } from "@/lib/security/policy-config";
import { authoringExample, TEST_TOKEN, tempDir } from "../environments/helpers";
import { type TestPlayground, testPlayground } from "../runs/helpers";
import { inspectorJson, PROCESS_TEST_MS, REPO, shell } from "./helpers";

const DOC = path.join(REPO, "docs/mcp.md");
const tmp = tempDir("ors-mcp-docs-");
/** The servers the stdio lines start record here, not in the user's data folder. */
const ENV = {
  PLAYGROUND_DATA_DIR: path.join(tmp.dir, "data"),
  PLAYGROUND_TOKEN: TEST_TOKEN,
  ORS_SERVERS: "",
};

let t: TestPlayground;
let app: Awaited<ReturnType<typeof listenHttp>>;

beforeAll(async () => {
  t = testPlayground();
  await t.pg.ready;
  const policy = createRequestPolicy({
    hosts: [],
    origins: [],
    token: TEST_TOKEN,
    orsKeys: false,
    kindOf: appPathKind,
  });
  app = await listenHttp(
    guardListener(
      () => policy,
      nodeListener(async (req) => {
        const m = /^\/api\/servers\/([^/]+)\/mcp$/.exec(new URL(req.url).pathname);
        return m ? t.pg.mcp.handle(req, m[1]!) : Response.json({ detail: "not found" }, { status: 404 });
      }),
    ),
    { host: "127.0.0.1", port: 0 },
  );
});
afterAll(async () => {
  await app.close(200);
  await t.close();
  tmp.remove();
});

const lines = (name: string) =>
  authoringExample(name, DOC)
    .split("\n")
    .filter((l) => l.trim() && !l.startsWith("#"));
/** A line's URL of a playground on port 3000, moved to the test's. */
const here = (line: string) => line.replaceAll("http://127.0.0.1:3000", app.url);
const names = (listed: unknown) => (listed as { tools: { name: string }[] }).tools.map((x) => x.name);
const MATH_TOOLS = ["list_tasks", "start_episode", "end_episode", "submit"];

describe("docs/mcp.md, as printed", () => {
  it(
    "Claude Code: the server command after -- serves the math environment over stdio",
    async () => {
      const [line] = lines("claude-code.sh");
      expect(line).toMatch(/^claude mcp add --transport stdio ors-math -- /);
      const command = line!.slice(line!.indexOf(" -- ") + 4);
      expect(command).toBe("npx ors-playground mcp local --env math");
      expect(
        names(
          inspectorJson(
            await shell(`npx @modelcontextprotocol/inspector --cli ${command} --method tools/list`, ENV),
          ),
        ),
      ).toEqual(MATH_TOOLS);
    },
    PROCESS_TEST_MS,
  );

  it(
    "Claude Desktop and Cursor: the mcpServers JSON starts the same server",
    async () => {
      const file = path.join(tmp.dir, "mcp.json");
      const json = authoringExample("mcp-servers.json", DOC);
      writeFileSync(file, json);
      expect(Object.keys(JSON.parse(json).mcpServers)).toEqual(["ors-math"]);
      const listed = inspectorJson(
        await shell(
          `npx @modelcontextprotocol/inspector --cli --config ${file} --server ors-math --method tools/list`,
          ENV,
        ),
      );
      expect(names(listed)).toEqual(MATH_TOOLS);
    },
    PROCESS_TEST_MS,
  );

  it(
    "MCP Inspector: tools/list and tools/call over stdio, tools/list over HTTP with the token",
    async () => {
      const [list, callLine, http] = lines("inspector.sh");
      expect(names(inspectorJson(await shell(list!, ENV)))).toEqual(MATH_TOOLS);
      const called = inspectorJson(await shell(callLine!, ENV)) as {
        structuredContent: { total: number; tasks: unknown[] };
      };
      expect(called.structuredContent).toMatchObject({ env: "math", split: "test", total: 200 });
      expect(called.structuredContent.tasks).toHaveLength(3);
      expect(http).toContain("http://127.0.0.1:3000/api/servers/local/mcp");
      expect(names(inspectorJson(await shell(here(http!), ENV)))).toEqual([
        "list_tasks",
        "start_episode",
        "end_episode",
      ]);
      // Without the token the playground refuses it.
      await expect(shell(here(http!), { ...ENV, PLAYGROUND_TOKEN: "wrong" })).rejects.toThrow(
        /the access token is not valid/,
      );
    },
    PROCESS_TEST_MS,
  );

  it(
    "Claude Code over HTTP: its URL and header reach the running playground's bridge",
    async () => {
      const [line] = lines("claude-code-http.sh");
      const m = /^claude mcp add --transport http ors-local (\S+) --header "([^"]+)"$/.exec(line!);
      expect(m).not.toBeNull();
      const [, url, header] = m!;
      expect(header).toBe("Authorization: Bearer $PLAYGROUND_TOKEN");
      const listed = inspectorJson(
        await shell(
          `npx @modelcontextprotocol/inspector --cli ${here(url!)} --transport http --header "${header}" --method tools/list`,
          ENV,
        ),
      );
      expect(names(listed)).toEqual(["list_tasks", "start_episode", "end_episode"]);
    },
    PROCESS_TEST_MS,
  );
});
