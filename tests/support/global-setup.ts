// Vitest's globalSetup: a small broker on loopback through which test files (in their own worker
// processes) share what is costly to make once per run — one PostgreSQL cluster, started on the
// first request for a database, and the one-time look-up (or install) of nginx. A run that needs
// neither starts nothing. Teardown stops the cluster by its PID.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";
import { ensureNginxBinary } from "./nginx";
import { ensurePostgresBinaries, type PostgresCluster, startPostgresCluster } from "./postgres";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let cluster: Promise<PostgresCluster | { reason: string }> | null = null;
  let nginx: ReturnType<typeof ensureNginxBinary> | null = null;

  const postgres = () => {
    cluster ??= (async () => {
      const bins = ensurePostgresBinaries();
      if (!bins.ok) return { reason: bins.reason };
      return startPostgresCluster({ binDir: bins.path });
    })();
    return cluster;
  };

  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const onRequest = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://broker");
    try {
      if (req.method === "POST" && url.pathname === "/postgres/database") {
        const c = await postgres();
        if ("reason" in c) return answer(res, 200, { ok: false, reason: c.reason });
        return answer(res, 200, {
          ok: true,
          url: await c.createDatabase(url.searchParams.get("label") ?? "test"),
        });
      }
      if (req.method === "POST" && url.pathname === "/nginx") {
        nginx ??= ensureNginxBinary();
        return answer(
          res,
          200,
          nginx.ok ? { ok: true, path: nginx.path } : { ok: false, reason: nginx.reason },
        );
      }
      answer(res, 404, { error: `unknown broker request ${req.method} ${url.pathname}` });
    } catch (err) {
      answer(res, 500, { error: (err as Error).message });
    }
  };
  const server = createServer((req, res) => void onRequest(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  project.provide("supportBroker", `http://127.0.0.1:${(server.address() as AddressInfo).port}`);

  return async () => {
    server.close();
    const c = await cluster;
    if (c && !("reason" in c)) await c.stop();
  };
}
