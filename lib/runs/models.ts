// The model endpoints the app may call (docs/runs.md "Model endpoints"), configured like servers:
// `PLAYGROUND_MODELS="name=baseUrl,…"`, each key from `PLAYGROUND_MODEL_API_KEY_<NAME>` (`-` as
// `_`). Under an address policy like the servers': link-local and metadata addresses never,
// loopback only unless `PLAYGROUND_ALLOW_REMOTE_MODELS=1`. A key is read from the environment when
// a request is sent and goes to that endpoint only: never to a run record, a trajectory, a log or
// the browser (GET /api/models lists names and base URLs).
import "server-only";
import type { Env } from "@/lib/config";
import { describeNetworkError, isUnreachableError } from "@/lib/ors/protocol/network-error";
import { checkServerUrl } from "@/lib/registry";
import { createPinnedFetch } from "@/lib/security/pinned-fetch";

export interface ModelEndpoint {
  /** The configured name (`local-vllm`), or `cli` for the CLI's `--model-url`. */
  name: string;
  /** The OpenAI-compatible base URL, e.g. `http://127.0.0.1:8000/v1`. */
  baseUrl: string;
  /** Where the key is read from when a request is sent (the variable's name, never the key). */
  apiKeyEnv: string | null;
  /** Only loopback addresses (configured endpoints, unless remote ones are allowed). */
  loopbackOnly: boolean;
  /** Concurrent requests at most, across every worker (PLAYGROUND_MODEL_MAX_CONCURRENCY_<NAME>). */
  maxConcurrency?: number;
  /** Requests per minute at most, across every worker (PLAYGROUND_MODEL_RPM_<NAME>). */
  perMinute?: number;
}

/** What GET /api/models shows: never a key. */
export interface PublicModelEndpoint {
  name: string;
  baseUrl: string;
  hasApiKey: boolean;
}

export class ModelEndpointError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "ModelEndpointError";
  }
}

const NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/** The variable of an endpoint's key: `PLAYGROUND_MODEL_API_KEY_LOCAL_VLLM` for `local-vllm`. */
export function apiKeyVariable(name: string): string {
  return `PLAYGROUND_MODEL_API_KEY_${name.toUpperCase().replace(/-/g, "_")}`;
}

function normalizeBaseUrl(raw: string): string {
  const u = new URL(raw);
  if (u.protocol !== "http:" && u.protocol !== "https:")
    throw new Error("the URL must be http:// or https://");
  if (u.username || u.password) throw new Error("the URL must not carry credentials (use the key variable)");
  u.hash = "";
  u.search = "";
  return u.toString().replace(/\/+$/, "");
}

/** Parses `PLAYGROUND_MODELS` (`name=url,name=url`); a bad entry is reported (without secrets) and skipped. */
export function parseModelsEnv(value: string | undefined, warn: (m: string) => void = console.warn) {
  const out: { name: string; baseUrl: string }[] = [];
  for (const part of (value ?? "").split(",")) {
    const item = part.trim();
    if (!item) continue;
    const eq = item.indexOf("=");
    const name = item.slice(0, eq).trim();
    try {
      if (eq <= 0) throw new Error("expected name=baseUrl");
      if (!NAME.test(name)) throw new Error("a name is 1-32 characters of a-z, 0-9, _ and -");
      if (out.some((m) => m.name === name)) throw new Error(`"${name}" is given twice`);
      out.push({ name, baseUrl: normalizeBaseUrl(item.slice(eq + 1).trim()) });
    } catch (err) {
      warn(
        `PLAYGROUND_MODELS: skipping the entry ${JSON.stringify(name || item.slice(0, 40))}: ${(err as Error).message}`,
      );
    }
  }
  return out;
}

export interface ModelRegistry {
  list(): PublicModelEndpoint[];
  /** A configured endpoint; throws ModelEndpointError (404) for an unknown name. */
  get(name: string): ModelEndpoint;
  /** The key of an endpoint, read now from the environment (undefined when none). */
  apiKey(endpoint: ModelEndpoint): string | undefined;
  /** fetch for an endpoint: its address checked on every request, then connected to (pinned). */
  fetchFor(endpoint: ModelEndpoint): typeof fetch;
}

/** A positive whole number from a variable, or undefined (unset or not one). */
function limitOf(raw: string | undefined): number | undefined {
  const n = Number(raw);
  return raw?.trim() && Number.isInteger(n) && n > 0 ? n : undefined;
}

export interface ModelRegistryOptions {
  /** Puts each endpoint's fetch behind the runs' shared capacity (its caps and 429 pauses). */
  wrapFetch?: (endpoint: ModelEndpoint, f: typeof fetch) => typeof fetch;
}

/** The endpoints `env` configures (PLAYGROUND_MODELS ...; keys are read from it when a call needs one). */
export function createModelRegistry(env: Env, o: ModelRegistryOptions = {}): ModelRegistry {
  const configured = parseModelsEnv(env.PLAYGROUND_MODELS);
  const allowRemote = env.PLAYGROUND_ALLOW_REMOTE_MODELS === "1";
  const pinned = createPinnedFetch({ maxPools: 8 });
  const suffix = (name: string) => name.toUpperCase().replace(/-/g, "_");
  const endpoint = (m: { name: string; baseUrl: string }): ModelEndpoint => {
    const maxConcurrency = limitOf(env[`PLAYGROUND_MODEL_MAX_CONCURRENCY_${suffix(m.name)}`]);
    const perMinute = limitOf(env[`PLAYGROUND_MODEL_RPM_${suffix(m.name)}`]);
    return {
      ...m,
      apiKeyEnv: apiKeyVariable(m.name),
      loopbackOnly: !allowRemote,
      ...(maxConcurrency ? { maxConcurrency } : {}),
      ...(perMinute ? { perMinute } : {}),
    };
  };
  return {
    list: () =>
      configured.map((m) => ({ name: m.name, baseUrl: m.baseUrl, hasApiKey: !!env[apiKeyVariable(m.name)] })),
    get(name) {
      const m = configured.find((x) => x.name === name);
      if (!m) {
        const known = configured.map((x) => x.name).join(", ");
        throw new ModelEndpointError(
          404,
          `unknown model endpoint "${name}" (${known ? `configured: ${known}` : "none is configured: set PLAYGROUND_MODELS=name=baseUrl"})`,
        );
      }
      return endpoint(m);
    },
    apiKey: (e) => (e.apiKeyEnv ? env[e.apiKeyEnv] || undefined : undefined),
    fetchFor(e) {
      const direct: typeof fetch = async (input, init) => {
        const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
        const verdict = await checkServerUrl(url, { loopbackOnly: e.loopbackOnly });
        if (!verdict.ok)
          throw new ModelEndpointError(
            403,
            `refused: model endpoint "${e.name}": ${verdict.reason}${e.loopbackOnly ? " (PLAYGROUND_ALLOW_REMOTE_MODELS=1 allows remote endpoints)" : ""}`,
          );
        try {
          return await pinned(url, { ...init, redirect: "manual" }, verdict.addresses);
        } catch (err) {
          // Not retried (the SDK would retry a network error for half a minute, every episode):
          // an endpoint that is down is said at once.
          if (!init?.signal?.aborted && isUnreachableError(err))
            throw new ModelEndpointError(502, `cannot connect to ${e.baseUrl}: ${describeNetworkError(err)}`);
          throw err;
        }
      };
      return o.wrapFetch ? o.wrapFetch(e, direct) : direct;
    },
  };
}

/** An endpoint the CLI was given by URL (`--model-url`, `--api-key-env`): the user's own, any address but link-local. */
export function adHocEndpoint(baseUrl: string, apiKeyEnv: string | null): ModelEndpoint {
  return { name: "cli", baseUrl: normalizeBaseUrl(baseUrl), apiKeyEnv, loopbackOnly: false };
}
