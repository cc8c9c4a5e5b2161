// Options for a host scaled out behind a proxy: session ids that name their worker
// (`sessionIdPrefix`, ORS_SESSION_ID_PREFIX), validated to URL-safe characters; default unchanged.
import { afterEach, describe, expect, it } from "vitest";
import { createOrsHandler, hostOptionsFromEnv } from "@/lib/ors/host";
import { closeHandlers, makeHandler, qa } from "./helpers";
import { ev, framesOf, jsonOf, send } from "./wire";

afterEach(closeHandlers);

describe("sessionIdPrefix", () => {
  it("starts every id /create_session makes, JSON and SSE alike; the ids work as any other", async () => {
    const h = makeHandler({ sessionIdPrefix: "w3-" });
    const { sid } = (await jsonOf(await send(h, "/create_session", { method: "POST" }))) as { sid: string };
    expect(sid).toMatch(/^w3-[0-9a-f-]{36}$/);
    const sse = await framesOf(
      await send(h, "/create_session", { method: "POST", headers: { accept: "text/event-stream" } }),
    );
    expect((sse[0] as { data: string }).data).toMatch(/^w3-[0-9a-f-]{36}$/);
    expect(sse[1]).toEqual(ev("end", ""));
    expect(
      (await send(h, "/create", { sid, body: { env_name: "qa", split: "train", index: 0 } })).status,
    ).toBe(200);
    expect((await send(h, "/qa/prompt", { sid })).status).toBe(200);
  });

  it("is none by default, and refused unless URL-safe", async () => {
    const h = makeHandler();
    const { sid } = (await jsonOf(await send(h, "/create_session", { method: "POST" }))) as { sid: string };
    expect(sid).toMatch(/^[0-9a-f-]{36}$/);
    for (const bad of ["w 3", "w/3", "ü", "x".repeat(65), "a\nb"])
      expect(() => createOrsHandler([qa], { sessionIdPrefix: bad })).toThrow(
        /sessionIdPrefix must be at most 64 URL-safe characters/,
      );
    expect(hostOptionsFromEnv({ ORS_SESSION_ID_PREFIX: "worker-2." })).toEqual({
      sessionIdPrefix: "worker-2.",
    });
    expect(() => hostOptionsFromEnv({ ORS_SESSION_ID_PREFIX: "w#2" })).toThrow(
      /^ORS_SESSION_ID_PREFIX must be/,
    );
  });
});
