// A recording app process for the tests that kill one: the composition root built from its
// environment (a SQLite data folder, or PLAYGROUND_DATABASE_URL), its relay served on node:http as the
// server entry's fast path serves it (lib/app-server: `relayTarget`, then `relay.handleNode`), on a
// loopback port the system picks. Prints `relay on <URL> (pid N)` once the store is ready.
// Run: node --import tsx tests/episodes/relay-process.ts
import { createServer } from "node:http";
import { allowServerOnlyUnderNode } from "../../lib/app-server/server-only-hook";
import { readyPlayground } from "../support/process-playground";

await allowServerOnlyUnderNode();
const { relayTarget } = await import("@/lib/app-server/relay-path");

const playground = await readyPlayground("the relay process");

const server = createServer((req, res) => {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  const target = relayTarget(req.method ?? "GET", q < 0 ? url : url.slice(0, q));
  if (!target) {
    res.writeHead(404, { "content-type": "application/json" });
    res.end('{"detail":"this test process serves the relay only"}');
    return;
  }
  void playground.relay.handleNode(req, res, target.name, target.orsPath);
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address() as { port: number };
  console.log(`relay on http://127.0.0.1:${address.port} (pid ${process.pid})`);
});

const stop = () => {
  server.close();
  void playground.close().finally(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
