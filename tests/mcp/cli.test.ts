// `ors-playground mcp` as real processes, played by MCP clients no one here wrote: the official SDK's
// Client over stdio and over Streamable HTTP (`--http`), several math episodes in one session, each
// recorded in the playground's store and tagged with the client; MCP Inspector's CLI lists the
// tools over HTTP; pointed at a running playground's relay URL, the episode is recorded by that
// playground, live.
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "@/lib/cli/main";
import { nodeListener } from "@/lib/mcp/node-http";
import { listenHttp } from "@/lib/ors/host";
import { orsPathFromUrl } from "@/lib/relay";
import { BIN, start, TEST_TOKEN, tempDir } from "../environments/helpers";
import { testPlayground } from "../runs/helpers";
import { waitUntil } from "../support/wait";
import {
  CLIENT_INFO,
  call,
  httpClient,
  inspector,
  PROCESS_TEST_MS,
  playMath,
  REPO,
  stdioClient,
  textOf,
} from "./helpers";

const tmp = tempDir("ors-mcp-cli-");
afterAll(() => tmp.remove());

/** The trajectories recorded in a data folder, read by a playground of the test's own. */
async function recorded(dir: string) {
  const t = testPlayground({}, dir);
  try {
    await t.pg.ready;
    const items = (await t.pg.store.list({ sort: "started_at", order: "asc" })).items;
    return items.map((x) => ({
      env: x.env,
      task: x.task_label,
      end: x.end_reason,
      reward: x.total_reward,
      client: x.client,
    }));
  } finally {
    await t.close();
  }
}

describe("ors-playground mcp's command line", () => {
  async function run(argv: string[], env: Record<string, string> = {}) {
    let out = "";
    let err = "";
    const code = await runCli(argv, {
      stdout: (s) => {
        out += s;
      },
      stderr: (s) => {
        err += s;
      },
      env: { PLAYGROUND_DATA_DIR: path.join(tmp.dir, "args"), ORS_SERVERS: "", ...env },
    });
    return { code, out, err };
  }

  it(
    "says what is wrong with exit code 2, and its options with help",
    async () => {
      expect(await run(["mcp"])).toMatchObject({
        code: 2,
        err: expect.stringMatching(/^mcp: give the ORS server/),
      });
      expect(await run(["mcp", "a", "b"])).toMatchObject({
        code: 2,
        err: expect.stringMatching(/^mcp: one server, not 2/),
      });
      expect(await run(["mcp", "local", "--http", "port"])).toMatchObject({
        code: 2,
        err: expect.stringMatching(/^mcp: --http must be a port number/),
      });
      expect(await run(["mcp", "http://user:pw@127.0.0.1:1"])).toMatchObject({
        code: 2,
        err: expect.stringMatching(/must not carry credentials/),
      });
      expect(await run(["mcp", "nope", "--http", "0"])).toMatchObject({
        code: 2,
        err: expect.stringMatching(/^mcp: no server named "nope" \(known: local.*; or give its URL\)/),
      });
      const help = await run(["help", "mcp"]);
      expect(help).toMatchObject({ code: 0, out: expect.stringMatching(/^usage: mcp <server-url-or-name>/) });
      expect((await run(["--help"])).out).toMatch(
        / {2}mcp SERVER {7}an ORS server's environments as an MCP server/,
      );
    },
    PROCESS_TEST_MS,
  );
});

describe("ors-playground mcp over stdio", () => {
  it(
    "plays several episodes for the SDK's Client, recorded in the store and tagged with it",
    async () => {
      const dir = path.join(tmp.dir, "stdio");
      const { client, transport } = await stdioClient(
        process.execPath,
        [BIN, "mcp", "local", "--env", "math"],
        {
          PLAYGROUND_DATA_DIR: dir,
          ORS_SERVERS: "",
        },
      );
      let stderr = "";
      transport.stderr?.on("data", (d) => {
        stderr += d;
      });
      try {
        expect(client.getServerVersion()).toMatchObject({ name: "ors-playground" });
        // --env: the environment's tools from the start.
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
          "list_tasks",
          "start_episode",
          "end_episode",
          "submit",
        ]);
        for (const index of [7, 8])
          expect((await playMath(client, index)).structuredContent).toMatchObject({ reward: 1 });
        const wrong = await call(client, "start_episode", { split: "train", index: 9 });
        expect(wrong.isError).toBeFalsy();
        expect((await call(client, "submit", { answer: "not a number" })).structuredContent).toMatchObject({
          reward: 0,
          finished: true,
        });
      } finally {
        await client.close();
      }
      await waitUntil("the process gone", () => transport.pid === null, 30_000);
      expect(stderr).toMatch(/serving local over stdio; episodes are recorded in /);
      expect(await recorded(dir)).toEqual([
        { env: "math", task: "train/7", end: "finished", reward: 1, client: CLIENT_INFO },
        { env: "math", task: "train/8", end: "finished", reward: 1, client: CLIENT_INFO },
        { env: "math", task: "train/9", end: "finished", reward: 0, client: CLIENT_INFO },
      ]);
    },
    PROCESS_TEST_MS,
  );
});

describe("ors-playground mcp --http", () => {
  it(
    "asks for the token; the SDK's Client plays over Streamable HTTP; MCP Inspector lists the tools",
    async () => {
      const dir = path.join(tmp.dir, "http");
      const proc = start([BIN, "mcp", "local", "--split", "test", "--http", "0"], {
        cwd: REPO,
        env: { PLAYGROUND_DATA_DIR: dir, ORS_SERVERS: "" },
      });
      try {
        const url = (
          await proc.waitFor(
            /MCP server \(Streamable HTTP\) for the ORS server local: (\S+)\n[\s\S]*Stop: Ctrl-C/,
            120_000,
          )
        )[1]!;
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
        expect(proc.out()).toContain(`Clients send: Authorization: Bearer ${TEST_TOKEN}`);
        const refused = await fetch(url, {
          method: "POST",
          body: "{}",
          headers: { "content-type": "application/json" },
        });
        expect(refused.status).toBe(401);
        const elsewhere = await fetch(url.replace("/mcp", "/other"), {
          headers: { authorization: `Bearer ${TEST_TOKEN}` },
        });
        expect(elsewhere.status).toBe(404);

        const client = await httpClient(url, { authorization: `Bearer ${TEST_TOKEN}` });
        // No --env, several environments: a start names one; --split is the default split.
        const started = await call(client, "start_episode", { env: "math", index: 3 });
        expect(textOf(started)).toMatch(/Episode started: math\/test #3/);
        await call(client, "submit", { answer: "0" });
        await call(client, "end_episode");
        await client.close();

        const listed = (await inspector([
          url,
          "--transport",
          "http",
          "--header",
          `Authorization: Bearer ${TEST_TOKEN}`,
          "--method",
          "tools/list",
        ])) as {
          tools: { name: string }[];
        };
        expect(listed.tools.map((t) => t.name)).toEqual(["list_tasks", "start_episode", "end_episode"]);
      } finally {
        expect(await proc.stop()).toBe(0);
      }
      expect(await recorded(dir)).toEqual([
        { env: "math", task: "test/3", end: "finished", reward: 0, client: CLIENT_INFO },
      ]);
    },
    PROCESS_TEST_MS,
  );
});

describe("ors-playground mcp on a running playground's relay URL", () => {
  it(
    "plays through that playground's relay: the episode is live there, tagged with the client",
    async () => {
      const t = testPlayground();
      await t.pg.ready;
      // The app's relay route, behind its access token.
      const app = await listenHttp(
        nodeListener(async (req) => {
          if (req.headers.get("authorization") !== `Bearer ${TEST_TOKEN}`)
            return Response.json({ detail: "token" }, { status: 401 });
          const name = /^\/api\/servers\/([^/]+)\//.exec(new URL(req.url).pathname)?.[1] ?? "";
          return t.pg.relay.handle(req, name, orsPathFromUrl(req.url, name));
        }),
        { host: "127.0.0.1", port: 0 },
      );
      const { client } = await stdioClient(
        process.execPath,
        [BIN, "mcp", `${app.url}/api/servers/local`, "--env", "math"],
        {
          PLAYGROUND_TOKEN: TEST_TOKEN,
          PLAYGROUND_DATA_DIR: path.join(tmp.dir, "unused"),
        },
      );
      try {
        await call(client, "start_episode", { split: "train", index: 11 });
        const live = await waitUntil("the episode live in the playground", async () =>
          (await t.pg.store.running()).find((x) => x.task_label === "train/11"),
        );
        expect(live).toMatchObject({ server: "local", env: "math", client: CLIENT_INFO });
        await call(client, "submit", { answer: "1" });
        await t.pg.recorder.idle();
        expect((await t.pg.store.get(live.id))?.end_reason).toBe("finished");
      } finally {
        await client.close();
        await app.close(200);
        await t.close();
      }
    },
    PROCESS_TEST_MS,
  );
});
