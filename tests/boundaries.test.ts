// The layering rules as a test: docs/layers.json says, for every part of the code, what it is, where
// it runs and what it may import; this reads the app's imports from its sources (static, re-exported
// and dynamic ones) and fails on every break of those rules, on an import cycle, and when
// docs/architecture.md ("Layers") no longer shows the rules file. The checker itself
// (tests/support/layers.ts) is tested on tiny graphs below, so a rule that cannot fail is noticed.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  checkLayers,
  findCycles,
  findPartCycles,
  type Import,
  type ImportGraph,
  type LayerRules,
  readImportGraph,
  renderLayers,
} from "./support/layers";

const ROOT = path.resolve(__dirname, "..");
const rules = JSON.parse(fs.readFileSync(path.join(ROOT, "docs/layers.json"), "utf8")) as LayerRules;
const graph = readImportGraph(ROOT, ["app", "components", "lib", "envs", "scripts"]);

describe("layers", () => {
  it("finds the app's modules and their imports", () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get("lib/playground.ts")!.some((i) => i.file === "lib/ors/host/index.ts")).toBe(true);
    expect(graph.get("lib/ors/client/index.ts")!.some((i) => i.typeOnly)).toBe(true);
  });

  it("every module keeps the rules of docs/layers.json", () => {
    expect(checkLayers(rules, graph)).toEqual([]);
  });

  it("the import graph has no cycles", () => {
    expect(findCycles(graph)).toEqual([]);
  });

  it("no two parts import each other, through any chain of parts (types included)", () => {
    expect(findPartCycles(rules, graph)).toEqual([]);
  });

  it("every part of lib/ is in the rules file", () => {
    const parts = new Set(rules.parts.map((p) => p.path));
    const entries = fs
      .readdirSync(path.join(ROOT, "lib"), { withFileTypes: true })
      .filter((e) => e.isDirectory() || /\.(ts|tsx|mjs)$/.test(e.name))
      .map((e) => `lib/${e.name}`);
    const missing = entries.filter((e) => !parts.has(e) && ![...parts].some((p) => p.startsWith(`${e}/`)));
    expect(missing).toEqual([]);
  });

  it("docs/architecture.md shows the rules file as it is", () => {
    const file = path.join(ROOT, "docs/architecture.md");
    const marked = /(<!-- layers:begin[^>]*-->\n)([\s\S]*?)(\n<!-- layers:end -->)/;
    // After a change to docs/layers.json: UPDATE_LAYERS_DOC=1 npx vitest run tests/boundaries.test.ts
    // writes the table into the doc (between its markers; nothing else changes).
    if (process.env.UPDATE_LAYERS_DOC === "1") {
      const doc = fs.readFileSync(file, "utf8");
      if (marked.test(doc))
        fs.writeFileSync(
          file,
          doc.replace(marked, (_, a, _b, c) => a + renderLayers(rules) + c),
        );
    }
    const block = marked.exec(fs.readFileSync(file, "utf8"))?.[2];
    expect(block).toBe(renderLayers(rules));
  });
});

describe("the rule checker", () => {
  const rulesOf = (parts: Partial<LayerRules["parts"][number]>[]): LayerRules => ({
    serverOnlyPackages: ["server-only", "node:*"],
    parts: parts.map((p) => ({ path: "", what: "", runs: "server", mayImport: [], ...p })),
  });
  const run = (file: string | null, specifier = file ? `@/${file}` : "", typeOnly = false): Import => ({
    specifier,
    typeOnly,
    file,
  });
  const graphOf = (edges: Record<string, Import[]>): ImportGraph => new Map(Object.entries(edges));

  const base = rulesOf([
    { path: "lib/core", runs: "isomorphic", mayImport: [], packages: ["zod"] },
    { path: "lib/server", runs: "server", mayImport: ["lib/core"], mayImportTypes: ["lib/ui"] },
    { path: "lib/ui", runs: "client", mayImport: ["lib/core"] },
    { path: "lib/root.ts", runs: "server", mayImport: ["lib/server", "lib/core"] },
  ]);

  it("passes a graph that keeps the rules", () => {
    const g = graphOf({
      "lib/core/a.ts": [run(null, "zod"), run("lib/core/b.ts")],
      "lib/core/b.ts": [],
      "lib/server/s.ts": [run(null, "server-only"), run(null, "node:fs"), run("lib/core/a.ts")],
      "lib/server/t.ts": [run("lib/ui/u.ts", "@/lib/ui/u", true)],
      "lib/ui/u.ts": [run("lib/core/a.ts")],
      "lib/root.ts": [run("lib/server/s.ts"), run("lib/core/b.ts")],
    });
    expect(checkLayers(base, g)).toEqual([]);
  });

  it("names a runtime import of a part the importer may not import", () => {
    const g = graphOf({ "lib/ui/u.ts": [run("lib/server/s.ts")], "lib/server/s.ts": [] });
    expect(checkLayers(base, g)).toEqual([
      "lib/ui/u.ts imports @/lib/server/s.ts: lib/ui may not import lib/server",
    ]);
  });

  it("allows a types-only import where mayImportTypes says so, and only a types-only one", () => {
    const typeOnly = graphOf({
      "lib/server/s.ts": [run("lib/ui/u.ts", "@/lib/ui/u", true)],
      "lib/ui/u.ts": [],
    });
    expect(checkLayers(base, typeOnly)).toEqual([]);
    const runtime = graphOf({ "lib/server/s.ts": [run("lib/ui/u.ts", "@/lib/ui/u")], "lib/ui/u.ts": [] });
    expect(checkLayers(base, runtime)).toHaveLength(1);
    const typeElsewhere = graphOf({
      "lib/ui/u.ts": [run("lib/root.ts", "@/lib/root", true)],
      "lib/root.ts": [],
    });
    expect(checkLayers(base, typeElsewhere)).toEqual([
      "lib/ui/u.ts imports @/lib/root (types): lib/ui may not import lib/root.ts",
    ]);
  });

  it("names a package outside a part's list", () => {
    const g = graphOf({ "lib/core/a.ts": [run(null, "zod/v4"), run(null, "react")] });
    expect(checkLayers(base, g)).toEqual(["lib/core/a.ts imports react: lib/core imports only zod"]);
  });

  it("follows runtime chains from browser code to a server-only package, and not type-only ones", () => {
    const rules = rulesOf([
      { path: "lib/ui", runs: "client", mayImport: ["lib/mixed"] },
      { path: "lib/mixed", runs: "node", mayImport: [] },
    ]);
    const g = graphOf({
      "lib/ui/u.ts": [run("lib/mixed/pure.ts")],
      "lib/mixed/pure.ts": [run("lib/mixed/disk.ts", "./disk"), run("lib/mixed/types.ts", "./types", true)],
      "lib/mixed/disk.ts": [run(null, "node:fs")],
      "lib/mixed/types.ts": [run(null, "node:path")],
    });
    expect(checkLayers(rules, g)).toEqual([
      "lib/ui/u.ts reaches node:fs (via lib/mixed/disk.ts): lib/ui runs in the browser too",
    ]);
  });

  it("names a server module that uses Node without saying server-only", () => {
    const g = graphOf({ "lib/server/s.ts": [run(null, "node:fs")] });
    expect(checkLayers(base, g)).toEqual([
      'lib/server/s.ts uses a server-only package but does not say import "server-only"',
    ]);
  });

  it("names a module in no part, and a rule naming no part", () => {
    const rules = rulesOf([{ path: "lib/a", mayImport: ["lib/gone"] }]);
    expect(checkLayers(rules, graphOf({ "lib/stray.ts": [] }))).toEqual([
      "lib/a names lib/gone, which is no part",
      "lib/stray.ts belongs to no part",
    ]);
  });

  it("finds cycles, type-only imports included", () => {
    const g = graphOf({
      "a.ts": [run("b.ts")],
      "b.ts": [run("a.ts", "./a", true)],
      "c.ts": [run("c.ts")],
      "d.ts": [run("a.ts")],
    });
    expect(findCycles(g)).toEqual([["a.ts", "b.ts"], ["c.ts"]]);
  });

  it("finds cycles between parts, through type-only imports and chains of parts", () => {
    const rules = rulesOf([
      { path: "lib/a" },
      { path: "lib/b" },
      { path: "lib/c" },
      { path: "lib/root.ts" },
      { path: "lib/leaf" },
    ]);
    const g = graphOf({
      "lib/a/x.ts": [run("lib/b/y.ts"), run("lib/a/z.ts", "./z")],
      "lib/a/z.ts": [run("lib/leaf/l.ts")],
      "lib/b/y.ts": [run("lib/c/w.ts")],
      "lib/c/w.ts": [run("lib/a/z.ts", "@/lib/a/z", true)],
      "lib/root.ts": [run("lib/leaf/l.ts")],
      "lib/leaf/l.ts": [],
      "scripts/loose.ts": [run("lib/a/x.ts")],
    });
    // No module cycle at all, but lib/a → lib/b → lib/c → (types) lib/a.
    expect(findCycles(g)).toEqual([]);
    expect(findPartCycles(rules, g)).toEqual([["lib/a", "lib/b", "lib/c"]]);
  });

  it("renders one row per part, saying what it may import", () => {
    const table = renderLayers(base).split("\n");
    expect(table).toHaveLength(2 + base.parts.length);
    expect(table[2]).toBe("| `lib/core` |  | isomorphic | no other part; packages: `zod` only |");
    expect(table[3]).toBe("| `lib/server` |  | server | `lib/core`; types from `lib/ui` |");
  });
});
