// The app's MCP bridge end to end (docs/mcp.md): an MCP client (the official SDK's) plays the built-in
// math environment at /api/servers/local/mcp, behind the app's access token; the episode shows in
// /live as it runs, says which client plays it, and is a trajectory like any other when it ends.
// MCP Inspector's CLI lists the same endpoint's tools, as docs/mcp.md prints the line.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect, test } from "@playwright/test";
import { generateMathTasks } from "../envs/math";
import { TrajectoryPage } from "./pages/trajectory";

const TOKEN = process.env.PLAYGROUND_TOKEN!;
const CLIENT = { name: "e2e-mcp-client", version: "1.2.3" };

type Result = { content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> };

async function mcpClient(url: string, token = TOKEN): Promise<Client> {
  const client = new Client(CLIENT, { capabilities: {} });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

test("an MCP client plays math at /api/servers/local/mcp: live in /live, then a trajectory", async ({
  page,
  baseURL,
}) => {
  const client = await mcpClient(`${baseURL}/api/servers/local/mcp`);
  try {
    const task = generateMathTasks("test")[17]!;
    const started = (await client.callTool({
      name: "start_episode",
      arguments: { env: "math", split: "test", index: 17 },
    })) as Result;
    expect(started.content[0]?.text).toBe(task.question);

    await page.goto("/live");
    const item = page
      .getByRole("list", { name: "Running episodes" })
      .getByRole("listitem")
      .filter({ hasText: "played by e2e-mcp-client 1.2.3" })
      .filter({ hasText: String(started.structuredContent?.sid) });
    await expect(item).toBeVisible();
    await item.getByRole("link", { name: "math · test/17" }).click();
    await expect(page.getByLabel("End reason: Running")).toBeVisible();
    await expect(page.getByText("played by e2e-mcp-client 1.2.3")).toBeVisible();

    const submitted = (await client.callTool({
      name: "submit",
      arguments: { answer: task.answer },
    })) as Result;
    expect(submitted.structuredContent).toEqual({
      reward: 1,
      finished: true,
      total_reward: 1,
      metadata: null,
    });
    // The step arrives on the open page without a reload.
    await expect(new TrajectoryPage(page).steps).toHaveCount(1);
    await expect(page.getByLabel("End reason: Finished")).toBeVisible();
    await expect(page.getByTestId("total-reward")).toHaveText("1");
  } finally {
    await client.close();
  }
});

test("the MCP endpoint asks for the app's token and knows only the app's servers", async ({ baseURL }) => {
  await expect(mcpClient(`${baseURL}/api/servers/local/mcp`, "not-the-token")).rejects.toThrow(
    /access token is not valid/,
  );
  await expect(mcpClient(`${baseURL}/api/servers/nope/mcp`)).rejects.toThrow(/unknown server/);
});

test("MCP Inspector's CLI lists the endpoint's tools, as docs/mcp.md prints the line", async ({
  baseURL,
}) => {
  const { stdout } = await promisify(execFile)(
    "sh",
    [
      "-c",
      `npx @modelcontextprotocol/inspector --cli ${baseURL}/api/servers/local/mcp --transport http --header "Authorization: Bearer $PLAYGROUND_TOKEN" --method tools/list`,
    ],
    { env: { ...process.env, npm_config_offline: "true" }, timeout: 120_000 },
  );
  const listed = JSON.parse(stdout.slice(stdout.indexOf("{"))) as { tools: { name: string }[] };
  expect(listed.tools.map((t) => t.name)).toEqual(["list_tasks", "start_episode", "end_episode"]);
});
