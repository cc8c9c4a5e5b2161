// Whether a server answers like an ORS server (docs/architecture.md "Security": the relay carries ORS
// and nothing else): `GET /health` gives `{"status": ...}` and `GET /list_environments` a list of
// names. The relay forwards nothing to a server added at run time until it does, so a user server
// pointed at some other local service (a database's HTTP port, an admin API) never receives a POST.
import "server-only";
import { healthResponseSchema, listEnvironmentsResponseSchema, type RelayFailure } from "@/lib/ors/protocol";
import { readWithin } from "@/lib/ors/protocol/body";
import type { PinnedFetch } from "@/lib/security/pinned-fetch";

/** What the probe needs of a server entry (lib/registry/registry.ts's ServerEntry is one). */
export interface ProbedServer {
  url: string;
  /** Sent as X-API-Key, as the relay sends it. */
  apiKey?: string;
}

export type OrsProbeVerdict =
  | { ok: true }
  | { ok: false; status: 502 | 504; failure: Exclude<RelayFailure, "refused">; reason: string };

export interface OrsProbeOptions {
  /** Connects to the checked addresses only. */
  fetch: PinnedFetch;
  /** Time for both requests together (default 10 s). */
  timeoutMs?: number;
  /** How long a server that answered like ORS is trusted before it is asked again (default 60 s):
   *  a port can change hands, and the next owner must answer too. */
  trustMs?: number;
  now?: () => number;
}

/** Largest answer read from /health or /list_environments. */
const MAX_PROBE_BYTES = 1024 * 1024;
/** Servers remembered as answering like ORS (the least recently checked is forgotten first). */
const MAX_TRUSTED = 256;

const WHY =
  "servers added at run time must answer GET /health and GET /list_environments as ORS servers do " +
  "before the relay forwards anything to them";

/** A fetch error as the servers list and the relay say it (`connection refused`, or its code). */
export function describeFetchError(err: unknown): string {
  const code = (err as { cause?: { code?: string } }).cause?.code;
  return code === "ECONNREFUSED" ? "connection refused" : (code ?? (err as Error).message);
}

export interface OrsProbe {
  /** Asks the server (or remembers that it answered); never throws. */
  check(entry: ProbedServer, addresses: readonly string[]): Promise<OrsProbeVerdict>;
}

export function createOrsProbe(options: OrsProbeOptions): OrsProbe {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const trustMs = options.trustMs ?? 60_000;
  const now = options.now ?? Date.now;
  /** key → when it last answered like ORS. */
  const trusted = new Map<string, number>();
  /** key → the probe running now, shared by the requests that wait for it. */
  const running = new Map<string, Promise<OrsProbeVerdict>>();

  async function probe(entry: ProbedServer, addresses: readonly string[]): Promise<OrsProbeVerdict> {
    const signal = AbortSignal.timeout(timeoutMs);
    const headers = new Headers({ accept: "application/json" });
    if (entry.apiKey) headers.set("x-api-key", entry.apiKey);
    const steps = [
      { path: "/health", schema: healthResponseSchema, shape: '{"status": ...}' },
      {
        path: "/list_environments",
        schema: listEnvironmentsResponseSchema,
        shape: "a list of environment names",
      },
    ] as const;
    for (const { path, schema, shape } of steps) {
      const notOrs = (what: string): OrsProbeVerdict => ({
        ok: false,
        status: 502,
        failure: "not-ors",
        reason: `does not answer like an ORS server: GET ${path} ${what} (${WHY})`,
      });
      let text: string;
      let status: number;
      try {
        const res = await options.fetch(
          `${entry.url}${path}`,
          { headers, signal, redirect: "manual" },
          addresses,
        );
        status = res.status;
        const body = await readWithin(res.body, MAX_PROBE_BYTES);
        if (body === null) return notOrs(`sent more than ${MAX_PROBE_BYTES} bytes`);
        text = new TextDecoder().decode(body);
      } catch (err) {
        if (signal.aborted)
          return {
            ok: false,
            status: 504,
            failure: "timeout",
            reason: `did not answer GET ${path} within ${timeoutMs / 1000} s (${WHY})`,
          };
        return {
          ok: false,
          status: 502,
          failure: "unreachable",
          reason: `is unreachable: ${describeFetchError(err)}`,
        };
      }
      if (status < 200 || status > 299)
        return notOrs(
          `answered HTTP ${status}${status === 401 || status === 403 ? " (does it need an API key? give it when adding the server)" : ""}`,
        );
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        return notOrs(`answered something that is not JSON, not ${shape}`);
      }
      if (!schema.safeParse(json).success) return notOrs(`answered JSON that is not ${shape}`);
    }
    return { ok: true };
  }

  return {
    async check(entry, addresses) {
      const key = JSON.stringify([entry.url, entry.apiKey ?? "", addresses]);
      const at = trusted.get(key);
      if (at !== undefined && now() - at < trustMs) return { ok: true };
      let run = running.get(key);
      if (!run) {
        run = probe(entry, addresses).finally(() => running.delete(key));
        running.set(key, run);
      }
      const verdict = await run;
      trusted.delete(key);
      if (verdict.ok) {
        trusted.set(key, now());
        while (trusted.size > MAX_TRUSTED) trusted.delete(trusted.keys().next().value!);
      }
      return verdict;
    },
  };
}
