// Request-level limits (docs/architecture.md "Host-side limits"): body size (413), optional API keys
// (401 everywhere but /health), and the ORS_* variables read by hostOptionsFromEnv.
import { afterEach, describe, expect, it } from "vitest";
import { hostOptionsFromEnv } from "@/lib/ors/host";
import { closeHandlers, makeHandler } from "./helpers";
import { expectError, jsonOf, newEpisode, send } from "./wire";

afterEach(closeHandlers);

describe("body size", () => {
  it("answers 413 above the limit, whether the size is declared or streamed", async () => {
    const h = makeHandler({ maxBodyBytes: 1000 });
    const big = { split: "train", pad: "x".repeat(2000) };
    await expectError(
      send(h, "/qa/tasks", { body: big }),
      413,
      /Request body too large: the limit is 1000 bytes/,
    );
    const enc = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 5; i++) c.enqueue(enc.encode("x".repeat(400)));
        c.close();
      },
    });
    const res = await h(
      new Request("http://ors.test/qa/tasks", {
        method: "POST",
        body: stream,
        duplex: "half",
      } as RequestInit),
    );
    expect(res.status).toBe(413);
    expect((await send(h, "/qa/num_tasks", { body: { split: "train" } })).status).toBe(200);
  });
});

describe("API keys", () => {
  it("requires X-API-Key on every endpoint but /health when keys are configured", async () => {
    const h = makeHandler({ apiKeys: ["k1", "k2"] });
    expect((await send(h, "/health")).status).toBe(200);
    await expectError(send(h, "/list_environments"), 401, /Missing X-API-Key header/);
    await expectError(send(h, "/qa/tools", { headers: { "x-api-key": "bad" } }), 401, /Invalid API key/);
    await expectError(send(h, "/create_session", { method: "POST" }), 401, /X-API-Key/);
    const key = { "x-api-key": "k2" };
    expect(await jsonOf(await send(h, "/list_environments", { headers: key }))).toContain("qa");
    const { sid } = (await (await send(h, "/create_session", { method: "POST", headers: key })).json()) as {
      sid: string;
    };
    await expectError(send(h, "/create", { sid, body: { split: "train", index: 0 } }), 401, /X-API-Key/);
    expect((await send(h, "/create", { sid, body: { split: "train", index: 0 }, headers: key })).status).toBe(
      200,
    );
    await expectError(send(h, "/qa/prompt", { sid }), 401, /X-API-Key/);
    expect((await send(h, "/qa/prompt", { sid, headers: key })).status).toBe(200);
  });

  it("ignores X-API-Key when no keys are configured", async () => {
    const h = makeHandler();
    const sid = await newEpisode(
      h,
      { env_name: "qa", split: "train", index: 0 },
      { "x-api-key": "anything" },
    );
    expect((await send(h, "/qa/prompt", { sid, headers: { "x-api-key": "whatever" } })).status).toBe(200);
  });
});

describe("hostOptionsFromEnv", () => {
  it("reads every ORS_* variable and rejects bad values naming the variable", () => {
    expect(
      hostOptionsFromEnv({
        ORS_IDLE_TIMEOUT_MS: "1000",
        ORS_MAX_SESSION_MS: "0",
        ORS_CALL_TIMEOUT_MS: "5000",
        ORS_MAX_SESSIONS: "7",
        ORS_MAX_BODY_BYTES: "2048",
        ORS_RESULT_LINGER_MS: "30000",
        ORS_RESULT_CACHE_BYTES: "1000000",
        ORS_PING_INTERVAL_MS: "250",
        ORS_API_KEYS: " a, b ,,c",
      }),
    ).toEqual({
      idleTimeoutMs: 1000,
      maxSessionMs: 0,
      callTimeoutMs: 5000,
      maxSessions: 7,
      maxBodyBytes: 2048,
      resultLingerMs: 30000,
      resultCacheBytes: 1000000,
      pingIntervalMs: 250,
      apiKeys: ["a", "b", "c"],
    });
    expect(hostOptionsFromEnv({})).toEqual({});
    expect(() => hostOptionsFromEnv({ ORS_MAX_SESSIONS: "lots" })).toThrow(/ORS_MAX_SESSIONS/);
    expect(() => hostOptionsFromEnv({ ORS_PING_INTERVAL_MS: "0" })).toThrow(/ORS_PING_INTERVAL_MS/);
  });
});
