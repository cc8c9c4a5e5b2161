// Memory held by sessions (issue: 40 sessions with 9 MiB task specs held 400 MB, still after they
// were deleted): the inputs sessions hold are counted against ORS_MAX_SESSION_BYTES (429 with
// Retry-After beyond it), the count returns to 0 as sessions end, and the memory itself is released
// (measured in a child process with --expose-gc).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { hostOptionsFromEnv } from "@/lib/ors/host";
import { waitUntil } from "../../support/wait";
import { closeHandlers, makeHandler } from "./helpers";
import { expectError, jsonOf, newEpisode, send } from "./wire";

afterEach(closeHandlers);

const MiB = 1024 * 1024;
const spec = (mib: number, tag: string) => ({ task_spec: { tag, pad: "x".repeat(mib * MiB) } });

describe("ORS_MAX_SESSION_BYTES", () => {
  it("counts what sessions hold, answers 429 with Retry-After beyond it, and frees it as they end", async () => {
    const h = makeHandler({
      maxSessionBytes: 10 * MiB,
      maxBodyBytes: 20 * MiB,
      retryAfterS: 5,
      idleTimeoutMs: 150,
      sweepIntervalMs: 10,
    });
    const sids: string[] = [];
    for (let i = 0; i < 4; i++) sids.push(await newEpisode(h, { env_name: "qa", ...spec(2, `s${i}`) }));
    const held = h.host.stats().sessionBytes;
    expect(held).toBeGreaterThan(8 * MiB);
    expect(held).toBeLessThan(8 * MiB + 4096);
    const { sid } = (await jsonOf(await send(h, "/create_session", { method: "POST" }))) as { sid: string };
    const full = await send(h, "/create", { sid, body: { env_name: "qa", ...spec(2, "s4") } });
    expect(full.headers.get("retry-after")).toBe("5");
    await expectError(
      full,
      429,
      /^Session memory full: live sessions hold \d+ bytes of task specs and secrets, and this one's \d+ would pass the limit of 10485760 \(ORS_MAX_SESSION_BYTES\)/,
    );
    expect(h.host.sessionCount).toBe(4);
    // One alone larger than the whole limit can never fit: 413, not "retry".
    await expectError(
      send(h, "/create", {
        sid,
        body: { env_name: "qa", ...spec(11, "huge") },
        headers: { "x-secrets": "e30=" },
      }),
      413,
      /ORS_MAX_SESSION_BYTES/,
    );
    // Deleting makes room; /delete_session and idle expiry release theirs too.
    await send(h, "/delete", { sid: sids[0]!, method: "POST" });
    expect((await send(h, "/create", { sid, body: { env_name: "qa", ...spec(2, "s4") } })).status).toBe(200);
    await send(h, "/delete_session", { sid: sids[1]!, method: "POST" });
    await send(h, "/delete", { sid: sids[2]!, method: "POST" });
    expect(h.host.stats().sessionBytes).toBeLessThan(4 * MiB + 4096);
    await waitUntil("the rest to expire (idle 150 ms)", () => h.host.stats().sessions === 0);
    expect(h.host.stats()).toMatchObject({ sessions: 0, sessionBytes: 0 });
  });

  it("counts unbound sessions and X-Secrets too", async () => {
    const h = makeHandler({ maxSessionBytes: 3 * MiB });
    const secrets = Buffer.from(JSON.stringify({ K: { value: "v".repeat(MiB) } })).toString("base64");
    const sid = await newEpisode(h, { task_spec: { a: 1 } }, { "x-secrets": secrets });
    expect(h.host.stats().sessionBytes).toBeGreaterThan((4 / 3) * MiB);
    await expectError(
      send(h, "/create", { sid: "b", body: spec(2, "b").task_spec ? spec(2, "b") : {} }),
      429,
      /memory full/,
    );
    await send(h, "/delete", { sid, method: "POST" });
    expect(h.host.stats().sessionBytes).toBe(0);
  });

  it("is read from the environment", () => {
    expect(hostOptionsFromEnv({ ORS_MAX_SESSION_BYTES: "1000" })).toEqual({ maxSessionBytes: 1000 });
    expect(() => hostOptionsFromEnv({ ORS_MAX_SESSION_BYTES: "0" })).toThrow(/ORS_MAX_SESSION_BYTES/);
  });
});

describe("memory after sessions end", () => {
  it("is released: 40 sessions of 4 MiB task specs created and deleted leave the heap as it was", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--expose-gc", "--import", "tsx", "tests/ors/host/session-memory-child.ts"],
      { timeout: 60_000 },
    );
    const r = JSON.parse(stdout) as { before: number; held: number; after: number; bytesAfter: number };
    expect(r.held - r.before).toBeGreaterThan(120 * MiB); // the specs were really held...
    expect(r.after - r.before).toBeLessThan(20 * MiB); // ...and are gone once the sessions ended
    expect(r.bytesAfter).toBe(0);
  });
});
