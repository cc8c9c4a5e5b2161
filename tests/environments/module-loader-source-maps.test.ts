// A production server keeps Node's source maps off (lib/app-server/source-maps.ts); an author's module
// loaded by loadFresh still gets its map, so a load error maps to the author's line, and the maps are
// off again afterwards. Run in a real node process under tsx, as the server entry runs.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "../..");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "loader-maps-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

it("loads an author's module with its source map while the process keeps them off", () => {
  // Types over several lines before the throw: esbuild drops them, so compiled and authored lines differ.
  const author = path.join(dir, "envs.ts");
  fs.writeFileSync(
    author,
    "interface A {\n  a: number;\n  b: string;\n}\ntype B = A;\nexport const x: B | null = null;\nthrow new Error('boom');\n",
  );
  const script = `
    const { allowServerOnlyUnderNode } = await import(${JSON.stringify(path.join(ROOT, "lib/app-server/server-only-hook.ts"))});
    await allowServerOnlyUnderNode();
    const { sourceMapsOffForProduction } = await import(${JSON.stringify(path.join(ROOT, "lib/app-server/source-maps.ts"))});
    sourceMapsOffForProduction();
    const { loadFresh } = await import(${JSON.stringify(path.join(ROOT, "lib/environments/module-loader.ts"))});
    const { findSourceMap } = await import("node:module");
    let frame = "";
    try { await loadFresh(${JSON.stringify(author)}); } catch (e) { frame = /envs\\.ts[^:]*:(\\d+):(\\d+)/.exec(e.cause.stack)?.slice(1).join(":") ?? ""; }
    const [line, column] = frame.split(":").map(Number);
    const url = ${JSON.stringify(`file://${author}`)} + "?ors-v=1";
    const entry = findSourceMap(url)?.findEntry(line - 1, column - 1);
    console.log(JSON.stringify({ frame, mapped: entry?.originalLine + 1, enabledAfter: process.sourceMapsEnabled }));
  `;
  const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 60_000,
  });
  const r = JSON.parse(out.trim().split("\n").at(-1)!) as {
    frame: string;
    mapped: number;
    enabledAfter: boolean;
  };
  // The throw is on line 7 of what the author wrote; the map says so, and the maps are off again.
  expect(r.frame).toMatch(/^\d+:\d+$/);
  expect(r.mapped).toBe(7);
  expect(r.enabledAfter).toBe(false);
});
