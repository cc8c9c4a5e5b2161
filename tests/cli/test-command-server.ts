// A real ORS server process for the `test` command's tests (tests/cli/test-command.test.ts):
// `node --import tsx tests/cli/test-command-server.ts PORT` (0: a free port, printed), with VARIANT=a or b choosing how the
// `variant` environment behaves (b is "the environment changed since it was recorded"), plus the
// built-in `dice` (random on purpose). `GET /__sessions` answers how many sessions are open.
import { createServer } from "node:http";
import { z } from "zod";
import { dice } from "@/envs/dice";
import { createNodeListener, createOrsHandler } from "@/lib/ors/host";
import { defineEnvironment, defineTool, text } from "@/lib/ors/sdk";

const version = process.env.VARIANT === "b" ? "b" : "a";
const port = Number(process.argv[2]);

const say = defineTool({
  description: "Say something back",
  input: z.object({ text: z.string() }),
  run: ({ text: s }) =>
    version === "a"
      ? { blocks: [text(`you said ${s}`)], reward: 1, metadata: { version, seed: 7 } }
      : { blocks: [text(`you said ${s.toUpperCase()}!`)], reward: 0.5, metadata: { version, seed: 9 } },
});

const stop = defineTool({
  description: "End the episode",
  run: () => ({ blocks: [text("bye")], reward: 0, finished: true }),
});

const wait = defineTool({
  description: "Wait this many seconds, then answer",
  input: z.object({ seconds: z.number().min(0).max(120) }),
  run: async ({ seconds }) => {
    await new Promise((r) => setTimeout(r, seconds * 1000));
    return { blocks: [text(`waited ${seconds} s`)], reward: 0 };
  },
});

const variant = defineEnvironment({
  name: "variant",
  description: "Test-only: behaviour chosen by VARIANT when the process starts",
  splits: ["train"],
  listTasks: () => [{ id: 0 }, { id: 1 }],
  getPrompt: ({ task }) => `Say something (task ${(task as { id: number }).id}).`,
  tools: { say, stop, wait },
});

const handler = createOrsHandler([variant, dice], { pingIntervalMs: 500 });
const ors = createNodeListener(handler);
const server = createServer((req, res) => {
  if (req.url === "/__sessions") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ sessions: handler.host.sessionCount }));
    return;
  }
  ors(req, res);
});
server.listen(port, "127.0.0.1", () => {
  // The port it got (PORT 0 picks a free one).
  console.log(
    `listening on http://127.0.0.1:${(server.address() as { port: number }).port} (variant ${version})`,
  );
});
const close = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.on("SIGTERM", close);
process.on("SIGINT", close);
