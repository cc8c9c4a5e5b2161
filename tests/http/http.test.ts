// The HTTP edge (lib/http): the route wrapper's answers to what a handler throws, the body readers'
// limits, the one SSE answer (headers, slow readers dropped, teardown when the client goes) and the
// streamed answers that never leave a client without an answer.
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { ReplayError } from "@/lib/episodes/replay";
import {
  json,
  jsonDepth,
  MAX_JSON_DEPTH,
  ndjsonResponse,
  readJsonBody,
  readJsonObject,
  route,
  sseResponse,
} from "@/lib/http";
import { OrsError, readSseFrames } from "@/lib/ors/protocol";
import { ServerRegistryError } from "@/lib/registry";
import { RunError } from "@/lib/runs/errors";
import { readSource, sourceFiles } from "../support/source-files";

const post = (body: string, headers: Record<string, string> = {}) =>
  new Request("http://app.test/api/x", {
    method: "POST",
    body,
    headers: { "content-type": "application/json", ...headers },
  });
const answerOf = async (res: Response) => ({ status: res.status, body: await res.json() });

afterEach(() => vi.restoreAllMocks());

describe("route()", () => {
  it("hands the handler its route parameters and answers what it returns", async () => {
    const handler = route<{ id: string }>(async (_req, { id }) => json({ id }, { status: 201 }));
    const res = await handler(new Request("http://app.test/"), { params: Promise.resolve({ id: "a1" }) });
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.json()).toEqual({ id: "a1" });
  });

  it("answers an OrsError and each of its subclasses as its {detail}, with its headers and fields", async () => {
    const thrown = [
      new OrsError(429, "busy", { "retry-after": "3" }),
      new RunError(404, 'no run with id "r"'),
      new ServerRegistryError(403, "not a user server"),
      new ReplayError("unreachable", 502, "the server is down"),
    ];
    const answers = [];
    for (const err of thrown) {
      const res = await route(() => {
        throw err;
      })(new Request("http://app.test/"));
      answers.push({ ...(await answerOf(res)), retry: res.headers.get("retry-after") });
    }
    expect(answers).toEqual([
      { status: 429, body: { detail: "busy" }, retry: "3" },
      { status: 404, body: { detail: 'no run with id "r"' }, retry: null },
      { status: 403, body: { detail: "not a user server" }, retry: null },
      { status: 502, body: { detail: "the server is down", kind: "unreachable" }, retry: null },
    ]);
  });

  it("knows an OrsError of another bundle (each Next route has its own copy of the class)", async () => {
    // What another bundle's OrsError looks like here: not this bundle's class, but marked the same.
    const other = Object.assign(new Error("taken"), {
      status: 409,
      detail: "taken",
      [Symbol.for("ors-playground.OrsError")]: true,
    });
    expect(other).not.toBeInstanceOf(OrsError);
    const res = await route(() => {
      throw other;
    })(new Request("http://app.test/"));
    expect(await answerOf(res)).toEqual({ status: 409, body: { detail: "taken" } });
  });

  it("answers anything else as a 500 that says nothing more, and logs it", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await route(() => {
      throw new RangeError("Maximum call stack size exceeded at /secret/path");
    })(new Request("http://app.test/api/runs", { method: "POST" }));
    expect(await answerOf(res)).toEqual({ status: 500, body: { detail: "Internal server error" } });
    expect(log).toHaveBeenCalledOnce();
    expect(String(log.mock.calls[0]![0])).toBe("POST /api/runs: unexpected failure:");
  });

  it("answers a request its client gave up on quietly (499), without logging it", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const gone = new AbortController();
    const req = new Request("http://app.test/", { signal: gone.signal });
    const res = await route(async () => {
      gone.abort();
      throw new Error("aborted");
    })(req);
    expect(res.status).toBe(499);
    expect(log).not.toHaveBeenCalled();
  });
});

describe("body readers", () => {
  it("refuse a body beyond the limit (413), malformed JSON and non-objects (400)", async () => {
    const fail = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: OrsError) => [e.status, e.detail],
      );
    expect(await fail(readJsonObject(post("x".repeat(2000)), 1024))).toEqual([
      413,
      "the body is larger than 1 KB",
    ]);
    expect(await fail(readJsonObject(post("{nope")))).toEqual([
      400,
      expect.stringMatching(/^body: malformed JSON/),
    ]);
    expect(await fail(readJsonObject(post("[1]")))).toEqual([400, "body: expected a JSON object"]);
    expect(await readJsonObject(post(""))).toEqual({});
  });

  it("refuse JSON nested deeper than MAX_JSON_DEPTH levels, counting brackets in strings as text", async () => {
    const deep = (n: number) => `{"a":${"[".repeat(n)}${"]".repeat(n)}}`;
    expect(jsonDepth('{"a":"[[[[[[","b":[{}]}')).toBe(3);
    expect(jsonDepth('{"a":"\\"[[["}')).toBe(1);
    await expect(readJsonObject(post(deep(MAX_JSON_DEPTH - 1)))).resolves.toBeDefined();
    await expect(readJsonObject(post(deep(5000)))).rejects.toMatchObject({
      status: 400,
      detail: `body: nested deeper than ${MAX_JSON_DEPTH} levels`,
    });
  });

  it("check a body with a schema, naming each offending field (400)", async () => {
    const schema = z.strictObject({ golden: z.boolean() });
    expect(await readJsonBody(post('{"golden":true}'), schema)).toEqual({ golden: true });
    await expect(readJsonBody(post('{"golden":1,"x":2}'), schema)).rejects.toMatchObject({ status: 400 });
  });
});

describe("sseResponse()", () => {
  it("sends events with the one SSE header set and runs the teardown when the client goes", async () => {
    const gone = new AbortController();
    const teardown = vi.fn();
    const res = sseResponse(
      (w) => {
        w.send("hello", { n: 1 });
        return teardown;
      },
      { signal: gone.signal },
    );
    expect(Object.fromEntries(res.headers)).toEqual({
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
    });
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('event: hello\ndata: {"n":1}\n\n');
    gone.abort();
    expect(teardown).toHaveBeenCalledOnce();
    expect((await reader.read()).done).toBe(true);
  });

  it("drops a reader that stops reading once the queue passes its limit, saying so, and tears down", async () => {
    const teardown = vi.fn();
    let writer!: Parameters<Parameters<typeof sseResponse>[0]>[0];
    const res = sseResponse(
      (w) => {
        writer = w;
        return teardown;
      },
      { signal: new AbortController().signal, queueLimitBytes: 10_000, slowReaderDetail: "too slow" },
    );
    for (let i = 0; i < 100 && !writer.closed; i++) writer.send("big", "x".repeat(1000));
    expect(writer.closed).toBe(true);
    expect(teardown).toHaveBeenCalledOnce();
    const frames = [];
    for await (const f of readSseFrames(res.body!)) frames.push(f);
    expect(frames.length).toBeLessThan(15);
    expect(frames.at(-1)).toMatchObject({ kind: "event", event: "error", data: '{"detail":"too slow"}' });
  });
});

describe("streamed answers", () => {
  it("a failure before the first line is an error answer, not a connection closed with nothing", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    async function* lines() {
      yield* [];
      throw new RangeError("Invalid time value");
    }
    const res = await route(() => ndjsonResponse(lines()))(new Request("http://app.test/"));
    expect(await answerOf(res)).toEqual({ status: 500, body: { detail: "Internal server error" } });
  });

  it("streams one value a line, pulled as the reader reads", async () => {
    async function* values() {
      yield { a: 1 };
      yield { b: 2 };
    }
    const res = await ndjsonResponse(values(), { filename: "x.jsonl" });
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="x.jsonl"');
    expect(await res.text()).toBe('{"a":1}\n{"b":2}\n');
  });
});

describe("one header set", () => {
  it("x-accel-buffering is written in the SSE and NDJSON header sets only", () => {
    const found = sourceFiles(["lib", "app", "components"], /\.tsx?$/).filter((f) =>
      /accel-buffering/i.test(readSource(f)),
    );
    expect(found.sort()).toEqual(["lib/http/ndjson.ts", "lib/ors/protocol/sse.ts"]);
  });
});
