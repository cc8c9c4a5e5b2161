// The compare view's diff, server-side (POST /api/servers/<name>/diff): one environment of a known
// server against another known server's, each reached as the check reaches it
// (lib/conformance/target.ts), read and compared as `diff --env-a --env-b` does, without scores.
import { createOrsClient, isOrsClientError } from "@/lib/ors/client";
import type { Playground } from "@/lib/playground";
import { type ServerTarget, serverTarget } from "../target";
import { buildDiffReport, type DiffReport } from "./report";
import { runSurfaceDiff } from "./run";
import {
  DEFAULT_SURFACE_PROMPTS,
  DEFAULT_SURFACE_SEED,
  DEFAULT_SURFACE_TASKS,
  SurfaceError,
} from "./surface";

export interface CompareRequest {
  server: string;
  env: string;
  with: { server: string; env: string };
  tasks?: number;
  prompts?: number;
}

/** A comparison that cannot be made, with the status the API answers. */
export class CompareError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "CompareError";
  }
}

type Reached = ServerTarget & { ok: true };

const clientOf = (t: Reached) =>
  createOrsClient({ baseUrl: t.baseUrl, apiKey: t.apiKey, fetch: t.fetch, timeoutMs: 60_000 });

/** The two environments' surface diff; a CompareError when a server may not be reached or read. */
export async function compareEnvironments(
  pg: Pick<Playground, "registry" | "host">,
  r: CompareRequest,
  signal?: AbortSignal,
): Promise<DiffReport> {
  const [a, b] = await Promise.all([serverTarget(pg, r.server), serverTarget(pg, r.with.server)]);
  if (!a.ok) throw new CompareError(a.status, a.detail);
  if (!b.ok) throw new CompareError(b.status, b.detail);
  const started = Date.now();
  const options = {
    tasks: r.tasks ?? DEFAULT_SURFACE_TASKS,
    prompts: r.prompts ?? DEFAULT_SURFACE_PROMPTS,
    seed: DEFAULT_SURFACE_SEED,
  };
  try {
    const d = await runSurfaceDiff(
      { client: clientOf(a), env: r.env },
      { client: clientOf(b), env: r.with.env },
      { ...options, signal },
    );
    const side = (server: string, t: Reached, env: string) => ({
      server,
      url: t.builtin ? "/api/ors" : t.baseUrl,
      env,
    });
    return buildDiffReport({
      a: side(r.server, a, r.env),
      b: side(r.with.server, b, r.with.env),
      startedAt: started,
      options: { ...options, maxFlips: 0 },
      changes: d.changes,
      unread: d.unread,
      behaviour: null,
    });
  } catch (err) {
    if (err instanceof SurfaceError) throw new CompareError(404, err.message);
    if (isOrsClientError(err)) throw new CompareError(502, `a server could not be read: ${err.detail}`);
    throw err;
  }
}
