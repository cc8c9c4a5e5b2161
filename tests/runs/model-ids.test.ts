// The model ids an endpoint lists (lib/runs/model-ids.ts), read through the model registry from a
// real OpenAI-compatible process (tests/fixtures/model-server) and from small servers that answer
// badly: the ids in the endpoint's order, the key sent to that endpoint, and a clear status and
// detail for whatever goes wrong (an unknown endpoint, a refused address, an error, not JSON, too
// large, too slow).
import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listModelIds, MODEL_LIST_MAX_BYTES, modelIdsOf } from "@/lib/runs/model-ids";
import { createModelRegistry } from "@/lib/runs/models";
import { type RunningModelServer, startModelServer } from "../fixtures/model-server/spawn";
import { startHttpServer } from "../relay/helpers";

const KEY = "sk-model-list-3f9d2c";
let model: RunningModelServer;
let odd: Awaited<ReturnType<typeof startHttpServer>>;

/** Answers by path: `/error/v1/models` a 500, `/text/…` not JSON, `/huge/…` more than the cap, `/slow/…` never. */
function oddAnswers(req: IncomingMessage, res: ServerResponse) {
  const kind = (req.url ?? "").split("/")[1];
  if (kind === "error") return res.writeHead(500).end("boom");
  if (kind === "text") return res.writeHead(200, { "content-type": "text/html" }).end("<html>hello</html>");
  if (kind === "shape") return res.writeHead(200).end(JSON.stringify({ models: ["a"] }));
  if (kind === "huge") {
    res.writeHead(200, { "content-type": "application/json" });
    const chunk = `{"id":"${"m".repeat(1000)}"},`;
    for (let sent = 0; sent <= MODEL_LIST_MAX_BYTES + chunk.length; sent += chunk.length) res.write(chunk);
    return res.end();
  }
  if (kind === "slow") return; // never answers: the request is given up on
  res.writeHead(404).end();
}

beforeAll(async () => {
  [model, odd] = await Promise.all([startModelServer(), startHttpServer(0, oddAnswers)]);
});
afterAll(async () => {
  await Promise.all([model?.stop(), odd?.close()]);
});

const registry = (extra: Record<string, string> = {}) =>
  createModelRegistry({
    PLAYGROUND_MODELS: [
      `fix=${model.baseUrl}`,
      ...["error", "text", "shape", "huge", "slow"].map((k) => `${k}=${odd.url}/${k}/v1`),
      "far=http://10.255.255.1:8000/v1",
    ].join(","),
    PLAYGROUND_MODEL_API_KEY_FIX: KEY,
    ...extra,
  });

async function refusal(p: Promise<unknown>): Promise<{ status: number; detail: string }> {
  const err = (await p.then(
    () => null,
    (e: unknown) => e,
  )) as { status: number; detail: string } | null;
  if (!err) throw new Error("expected a refusal");
  return { status: err.status, detail: err.detail };
}

describe("listModelIds", () => {
  it("lists the endpoint's ids in its order and sends the endpoint its key", async () => {
    await model.reset();
    expect(await listModelIds(registry(), "fix")).toEqual([
      "oracle",
      "wrong",
      "chatty",
      "multi",
      "broken-args",
      "off-schema",
    ]);
    const stats = await model.stats();
    expect(stats.modelLists).toBe(1);
    expect(stats.authorization).toEqual([`Bearer ${KEY}`]);
  });

  it("answers 404 for an endpoint that is not configured, naming the configured ones", async () => {
    const r = await refusal(listModelIds(registry(), "nope"));
    expect(r.status).toBe(404);
    expect(r.detail).toContain('unknown model endpoint "nope"');
  });

  it("refuses a remote endpoint under the loopback-only policy before connecting", async () => {
    const r = await refusal(listModelIds(registry(), "far"));
    expect(r.status).toBe(403);
    expect(r.detail).toContain("PLAYGROUND_ALLOW_REMOTE_MODELS=1");
  });

  it("says what went wrong with a bad answer (502), never passing it on", async () => {
    expect(await refusal(listModelIds(registry(), "error"))).toEqual({
      status: 502,
      detail: `${odd.url}/error/v1/models answered 500`,
    });
    expect((await refusal(listModelIds(registry(), "text"))).detail).toContain("did not answer JSON");
    expect((await refusal(listModelIds(registry(), "shape"))).detail).toContain('no "data" array');
    expect(await refusal(listModelIds(registry(), "huge"))).toEqual({
      status: 502,
      detail: `the model list is larger than ${MODEL_LIST_MAX_BYTES} bytes`,
    });
  });

  it("gives up on an endpoint that does not answer when the caller does", async () => {
    const gone = AbortSignal.timeout(300);
    await expect(listModelIds(registry(), "slow", gone)).rejects.toThrow();
    expect(gone.aborted).toBe(true);
  });
});

describe("modelIdsOf", () => {
  it("keeps usable ids once each, skipping the rest", () => {
    expect(
      modelIdsOf({
        data: [{ id: "a" }, { id: "" }, { id: 3 }, null, { id: "a" }, { id: "b" }, { id: "x".repeat(201) }],
      }),
    ).toEqual(["a", "b"]);
  });
});
