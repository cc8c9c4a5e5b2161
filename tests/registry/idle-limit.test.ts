// A server's session idle limit, where the playground knows it (a per-server setting): from
// ORS_SERVER_IDLE_TIMEOUT_MS_<NAME>, servers.json, or the Add server form; shown by /api/servers
// and used by the episode page's countdown and the recorder's end reasons.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createServerRegistry, toPublicServer } from "@/lib/registry";
import { tempDir } from "../episodes/helpers";

const local = async () => new Response("{}");

describe("per-server idle limits", () => {
  it("come from the environment, the config file and added servers; bad ones are refused", async () => {
    const dataDir = tempDir("idle-");
    fs.writeFileSync(
      path.join(dataDir, "servers.json"),
      JSON.stringify({ servers: [{ name: "cfg", url: "http://127.0.0.1:9001", idleTimeoutMs: 300000 }] }),
    );
    const registry = createServerRegistry({
      dataDir,
      env: { ORS_SERVERS: "py=http://127.0.0.1:9000", ORS_SERVER_IDLE_TIMEOUT_MS_PY: "120000" },
      localHandler: () => local,
    });
    expect((await registry.get("py"))?.idleTimeoutMs).toBe(120_000);
    expect((await registry.get("cfg"))?.idleTimeoutMs).toBe(300_000);
    const added = await registry.add({ name: "mine", url: "http://127.0.0.1:9002", idleTimeoutMs: 60_000 });
    expect(toPublicServer(added)).toMatchObject({ name: "mine", idleTimeoutMs: 60_000, hasApiKey: false });
    expect((await registry.get("mine"))?.idleTimeoutMs).toBe(60_000);
    await expect(
      registry.add({ name: "bad", url: "http://127.0.0.1:9003", idleTimeoutMs: -5 }),
    ).rejects.toMatchObject({
      status: 400,
    });
    expect(toPublicServer((await registry.get("local"))!).idleTimeoutMs).toBeNull();
  });
});
