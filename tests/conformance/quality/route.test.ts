// The check page's API with the quality checks (`POST /api/servers/<name>/check` with `quality`),
// through its route handler in process, on the app's own playground whose built-in host serves the
// quality fixtures: progress lines, the report's quality part with its evidence, an oracle outside
// the folders scripts may load from refused (and said so), a bad `quality` body refused.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConformanceReport } from "@/lib/conformance";
import { staticEnvironmentSource } from "@/lib/environments/source";
import type { Playground } from "@/lib/playground";
import { qualityEnvironments } from "../../fixtures/quality-envs";
import { tempDir } from "../../runs/helpers";
import { qualityReportShape } from "../helpers";
import { FIXTURES, ORACLE } from "./helpers";

type Handler = (req: Request, ctx: { params: Promise<{ name: string }> }) => Promise<Response>;
let POST: Handler;
let pg: Playground;

beforeAll(async () => {
  process.env.PLAYGROUND_DATA_DIR = tempDir("quality-route-");
  process.env.PLAYGROUND_SCRIPT_ROOTS = `${FIXTURES}/quality`;
  const { initPlayground } = await import("@/lib/playground");
  pg = initPlayground({ environments: staticEnvironmentSource(qualityEnvironments) });
  POST = ((await import("@/app/api/servers/[name]/check/route")) as { POST: Handler }).POST;
});

afterAll(async () => {
  await pg?.close();
  delete process.env.PLAYGROUND_DATA_DIR;
  delete process.env.PLAYGROUND_SCRIPT_ROOTS;
});

async function check(body: unknown) {
  const res = await POST(
    new Request("http://app.test/api/servers/local/check", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
    { params: Promise.resolve({ name: "local" }) },
  );
  const text = await res.text();
  return {
    status: res.status,
    text,
    lines: res.ok
      ? text
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l))
      : [],
  };
}

describe("POST /api/servers/<name>/check with quality", () => {
  it("streams the quality checks' progress, then the report with their findings and episodes", async () => {
    const { status, lines } = await check({ env: "crashy", quality: { tasks: 4, oracle: ORACLE } });
    expect(status).toBe(200);
    const progress = lines.filter((l) => l.type === "quality").map((l) => l.progress);
    expect(progress.map((p) => p.phase)).toEqual(
      expect.arrayContaining(["sampling", "playing", "replaying", "reading"]),
    );
    expect(progress.find((p) => p.phase === "playing" && p.done === p.total)).toMatchObject({ total: 8 });
    const report = lines.at(-1).report as ConformanceReport;
    expect(lines.at(-1).type).toBe("report");
    expect(qualityReportShape.safeParse(report.quality).success).toBe(true);
    const q = report.quality!;
    expect(q.server).toBe("local");
    expect(q.results.filter((r) => r.outcome === "finding").map((r) => r.id)).toEqual(["tool-crash"]);
    expect(report.summary.passed).toBe(false);
    const e = q.results.find((r) => r.id === "tool-crash")!.evidence[0]!;
    const t = await pg.store.get(e.trajectory!.id);
    expect(t).toMatchObject({ server: "local", env: "crashy" });
  });

  it("says why when the oracle is outside the folders scripts may load from, and plays nothing", async () => {
    // The app's folder and PLAYGROUND_SCRIPT_ROOTS are allowed; a temp folder is not.
    const outside = path.join(tempDir("quality-oracle-"), "oracle.ts");
    fs.copyFileSync(ORACLE, outside);
    const { lines } = await check({ env: "sound", quality: { tasks: 2, oracle: outside } });
    const q = (lines.at(-1).report as ConformanceReport).quality!;
    expect(q.sample).toBeNull();
    expect(q.error).toMatch(/^refused: the script module .* is outside the folders scripts may run from/);
    expect(new Set(q.results.map((r) => r.outcome))).toEqual(new Set(["not-exercised"]));
    expect(q.summary.passed).toBe(false);
  });

  it("refuses a bad quality body with 400, naming the field", async () => {
    const r = await check({ quality: { tasks: 0 } });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text).detail).toMatch(/^quality\.tasks: /);
    const extra = await check({ quality: { nope: 1 } });
    expect(extra.status).toBe(400);
  });
});
