// Policies in isolation: random inputs valid against every schema Pydantic emits (checked with
// Ajv), the same for the same seed; the 429 handling of the runs' clients.
import Ajv2020 from "ajv/dist/2020";
import { describe, expect, it } from "vitest";
import { createRandomPolicy, episodeRandom } from "@/lib/runs/random-policy";
import { retryAfterMs, retryingFetch } from "@/lib/runs/retry-fetch";
import { randomInput } from "@/lib/schema-inputs";
import fixture from "../fixtures/pydantic-tool-schemas.json";

const tools = (
  fixture as { tools: { name: string; description: string; input_schema: Record<string, unknown> | null }[] }
).tools;

describe("random inputs", () => {
  it("are valid for every Pydantic schema of the fixture, across many seeds, and vary", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    for (const t of tools) {
      const validate = t.input_schema ? ajv.compile(t.input_schema) : null;
      const seen = new Set<string>();
      for (let seed = 0; seed < 40; seed++) {
        const g = randomInput(t.input_schema, episodeRandom(seed, 0, 0));
        expect(g.ok, `${t.name}: ${JSON.stringify(g)}`).toBe(true);
        if (!g.ok) continue;
        if (validate)
          expect(
            validate(g.value),
            `${t.name} ${JSON.stringify(g.value)}: ${JSON.stringify(validate.errors)}`,
          ).toBe(true);
        seen.add(JSON.stringify(g.value));
      }
      if (t.input_schema && Object.keys((t.input_schema.properties as object) ?? {}).length)
        expect(seen.size, t.name).toBeGreaterThan(1);
    }
  });

  it("the policy calls one tool a turn, the same calls for the same seed, task and repeat", async () => {
    const ctx = {
      server: "s",
      env: "e",
      split: "train",
      taskIndex: 3,
      repeat: 0,
      prompt: [],
      tools,
      task: async () => null,
      signal: new AbortController().signal,
    };
    const play = async (seed: number, repeat = 0) => {
      const ep = await createRandomPolicy(seed).startEpisode({ ...ctx, repeat });
      const out = [];
      for (let i = 0; i < 5; i++) out.push((await ep.next([])).calls);
      return out;
    };
    const a = await play(1);
    expect(a.every((c) => c.length === 1)).toBe(true);
    expect(await play(1)).toEqual(a);
    expect(await play(2)).not.toEqual(a);
    expect(await play(1, 1)).not.toEqual(a);
    const none = await createRandomPolicy(1).startEpisode({ ...ctx, tools: [] });
    expect(await none.next([])).toMatchObject({ calls: [], stop: "policy_stop" });
  });
});

describe("a server at capacity", () => {
  it("reads Retry-After in seconds or as a date", () => {
    expect(retryAfterMs("2")).toBe(2000);
    expect(retryAfterMs("0.5")).toBe(500);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs("soon")).toBeNull();
    expect(retryAfterMs(null)).toBeNull();
  });

  it("re-sends after the wait asked, a bounded number of times", async () => {
    const answers = [429, 503, 200];
    const sent: number[] = [];
    const inner: typeof fetch = async () => {
      sent.push(Date.now());
      const status = answers.shift() ?? 429;
      return new Response("{}", { status, headers: status === 200 ? {} : { "retry-after": "0.1" } });
    };
    const waits: number[] = [];
    const f = retryingFetch(inner, { onRetry: (ms) => waits.push(ms) });
    expect((await f("http://x/create_session", { method: "POST", body: "{}" })).status).toBe(200);
    expect(waits).toEqual([100, 100]);
    expect(sent[2]! - sent[0]!).toBeGreaterThanOrEqual(190);
    // Without Retry-After: backing off from baseMs; past maxRetries the 429 is answered.
    const always: typeof fetch = async () => new Response("{}", { status: 429 });
    const backoff: number[] = [];
    const g = retryingFetch(always, { maxRetries: 3, baseMs: 1, onRetry: (ms) => backoff.push(ms) });
    expect((await g("http://x", {})).status).toBe(429);
    expect(backoff).toEqual([1, 2, 4]);
    // A 503 without Retry-After is the server failing, not busy: not retried.
    let n = 0;
    const h = retryingFetch(async () => {
      n++;
      return new Response("{}", { status: 503 });
    });
    expect((await h("http://x", {})).status).toBe(503);
    expect(n).toBe(1);
  });
});
