// Test helpers of the review API: the app's route handlers called in process, on the app's own
// playground (its built-in host, a temp data folder), and a run of the `math` oracle to review.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";
import type { Playground } from "@/lib/playground";

type Handler = (
  req: Request,
  ctx: { params: Promise<Record<string, string>> },
) => Promise<Response> | Response;
export type Route = Record<string, Handler>;

export const FIXTURES = path.join(__dirname, "../runs/fixtures");
/** Answers right on every task of `math` but those whose index is a multiple of 5 (80% over 0-9). */
export const ORACLE = { kind: "script", module: `${FIXTURES}/math-oracle.ts` } as const;

/**
 * The playground of this test file (its data in a temp folder, or in PostgreSQL at `databaseUrl`)
 * and its routes, loaded by name.
 */
export async function appUnderTest(routes: Record<string, () => Promise<unknown>>, databaseUrl?: string) {
  process.env.PLAYGROUND_DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "review-api-"));
  if (databaseUrl) process.env.PLAYGROUND_DATABASE_URL = databaseUrl;
  process.env.PLAYGROUND_SCRIPT_ROOTS = FIXTURES;
  const loaded: Record<string, Route> = {};
  for (const [name, load] of Object.entries(routes)) loaded[name] = (await load()) as Route;
  const pg: Playground = (await import("@/lib/playground")).getPlayground();
  await pg.ready;

  async function call(
    route: string,
    method: string,
    url: string,
    o: { body?: unknown; params?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { host: "127.0.0.1:3000", ...o.headers };
    if (o.body !== undefined) headers["content-type"] ??= "application/json";
    const req = new Request(`http://127.0.0.1:3000${url}`, {
      method,
      headers,
      ...(o.body !== undefined ? { body: typeof o.body === "string" ? o.body : JSON.stringify(o.body) } : {}),
    });
    const handler = loaded[route]?.[method];
    if (!handler) throw new Error(`no ${method} in route ${route}`);
    return handler(req, { params: Promise.resolve(o.params ?? {}) });
  }

  async function json<T = Record<string, unknown>>(res: Response | Promise<Response>) {
    const r = await res;
    return { status: r.status, headers: r.headers, body: (await r.json()) as T & { detail?: string } };
  }

  /** A run of the oracle on `math` train, played to its end. */
  async function oracleRun(tasks = "0-9"): Promise<string> {
    const run = await pg.runs.start({ server: "local", env: "math", split: "train", tasks, policy: ORACLE });
    const done = await pg.runs.settled(run.id);
    expect(done?.status).toBe("done");
    return run.id;
  }

  return {
    pg,
    call,
    json,
    oracleRun,
    async close() {
      await pg.close();
      delete process.env.PLAYGROUND_DATA_DIR;
      delete process.env.PLAYGROUND_SCRIPT_ROOTS;
      delete process.env.PLAYGROUND_DATABASE_URL;
    },
  };
}
