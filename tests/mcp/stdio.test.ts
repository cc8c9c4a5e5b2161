// The bridge over stdio in process (lib/mcp/stdio.ts), on streams the test writes and reads as an MCP
// client's pipes: a line that is not JSON-RPC gets the SDK's error report and the session reads on;
// an unknown method gets the SDK's JSON-RPC error; nothing but the protocol reaches stdout; closing
// stdin ends the session and deletes its running episode.
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveMcpStdio } from "@/lib/mcp/stdio";
import { type TestPlayground, testPlayground } from "../runs/helpers";
import { waitUntil } from "../support/wait";
import { CLIENT_INFO } from "./helpers";

let t: TestPlayground;
beforeAll(async () => {
  t = testPlayground();
  await t.pg.ready;
});
afterAll(() => t.close());

describe("the bridge over stdio", () => {
  it("reports a malformed line and reads on; answers an unknown method with the SDK's error; ends with stdin", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const lines: Record<string, unknown>[] = [];
    let buffer = "";
    stdout.on("data", (d: Buffer) => {
      buffer += d.toString();
      let nl = buffer.indexOf("\n");
      while (nl >= 0) {
        lines.push(JSON.parse(buffer.slice(0, nl)));
        buffer = buffer.slice(nl + 1);
        nl = buffer.indexOf("\n");
      }
    });
    const errors: string[] = [];
    const served = serveMcpStdio(
      { server: "local", env: "math", client: (headers) => t.pg.clientFor("local", { headers }) },
      { stdin, stdout, log: (l) => errors.push(l) },
    );
    const send = (m: unknown) => stdin.write(`${typeof m === "string" ? m : JSON.stringify(m)}\n`);
    const answer = (id: number) => waitUntil(`the answer to ${id}`, () => lines.find((l) => l.id === id));

    send("this is not JSON-RPC");
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: CLIENT_INFO },
    });
    expect(await answer(1)).toMatchObject({ result: { serverInfo: { name: "ors-playground" } } });
    expect(errors.join("\n")).toMatch(/^\[mcp\] .*JSON/);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "no/such/method" });
    expect(await answer(2)).toMatchObject({ error: { code: -32601 } });
    send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { arguments: {} } });
    // A call without a tool name: the SDK's schema refuses it, naming the field.
    expect(await answer(3)).toMatchObject({ error: { message: expect.stringMatching(/name/) } });
    send({
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name: "start_episode", arguments: { split: "train", index: 4 } },
    });
    expect(await answer(4)).toMatchObject({
      result: { structuredContent: { env: "math", tools: ["submit"] } },
    });
    // What the process prints goes to stderr while stdio serves: stdout stays the protocol's.
    console.log("a stray line");
    stdin.end();
    await served;
    expect(lines.every((l) => l.jsonrpc === "2.0")).toBe(true);
    await t.pg.recorder.idle();
    const [episode] = (await t.pg.store.list({ env: "math" })).items;
    expect(episode).toMatchObject({ task_label: "train/4", end_reason: "user_closed", client: CLIENT_INFO });
  });
});
