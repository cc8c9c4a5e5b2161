// The model ids an endpoint serves: `GET <baseUrl>/models`, which every OpenAI-compatible server
// answers (OpenAI, vLLM, Ollama, LiteLLM, llama.cpp's server) with `{"data": [{"id": ...}, ...]}`.
// Read on the server through the registry's address policy and pinned fetch, with the endpoint's
// key (which stays here), bounded in time and size, so the browser can offer the ids without
// guessing (docs/runs.md "A model at the controls").
import "server-only";
import { RunError } from "./errors";
import { ModelEndpointError, type ModelRegistry } from "./models";

/** How long an endpoint may take to list its models. */
export const MODEL_LIST_TIMEOUT_MS = 10_000;
/** The most of a list's answer read (a list of thousands of ids is a few hundred kB). */
export const MODEL_LIST_MAX_BYTES = 1024 * 1024;
/** The most ids kept, in the endpoint's order. */
export const MODEL_LIST_MAX_IDS = 1000;
/** The longest id kept (as the model-turn API takes). */
const MAX_ID_LENGTH = 200;

/** The answer's body as text, refusing one over `max` bytes without reading further. */
async function boundedText(res: Response, max: number): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw new RunError(502, `the model list is larger than ${max} bytes`);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** The ids of an OpenAI-shaped list, read leniently: entries without a usable id are skipped. */
export function modelIdsOf(body: unknown): string[] {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) throw new RunError(502, 'the model list has no "data" array');
  const ids: string[] = [];
  for (const m of data) {
    const id = (m as { id?: unknown } | null)?.id;
    if (typeof id !== "string" || !id || id.length > MAX_ID_LENGTH || ids.includes(id)) continue;
    ids.push(id);
    if (ids.length >= MODEL_LIST_MAX_IDS) break;
  }
  return ids;
}

/** The model ids the configured endpoint `name` lists. Throws RunError (`{detail}` with its status). */
export async function listModelIds(
  models: ModelRegistry,
  name: string,
  signal?: AbortSignal,
): Promise<string[]> {
  let endpoint: ReturnType<ModelRegistry["get"]>;
  try {
    endpoint = models.get(name);
  } catch (err) {
    if (err instanceof ModelEndpointError) throw new RunError(err.status, err.message);
    throw err;
  }
  const timeout = AbortSignal.timeout(MODEL_LIST_TIMEOUT_MS);
  const key = models.apiKey(endpoint);
  const url = `${endpoint.baseUrl}/models`;
  let res: Response;
  try {
    res = await models.fetchFor(endpoint)(url, {
      headers: { accept: "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (err) {
    if (err instanceof ModelEndpointError) throw new RunError(err.status, err.message);
    if (timeout.aborted) throw new RunError(504, `${url} did not answer within ${MODEL_LIST_TIMEOUT_MS} ms`);
    throw err;
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    throw new RunError(502, `${url} answered ${res.status}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(await boundedText(res, MODEL_LIST_MAX_BYTES));
  } catch (err) {
    if (err instanceof RunError) throw err;
    if (timeout.aborted) throw new RunError(504, `${url} did not answer within ${MODEL_LIST_TIMEOUT_MS} ms`);
    throw new RunError(502, `${url} did not answer JSON`);
  }
  return modelIdsOf(body);
}
