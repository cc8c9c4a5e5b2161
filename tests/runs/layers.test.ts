// The seams of lib/runs (docs/runs.md "Where the code is"): the policies are importable without
// the executor (the quality checks of `check` reuse them), and the policy contract, the statistics,
// the conversation and the exports are isomorphic (no Node, no server-only module).
import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "../..");
const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?["']([^"']+)["']/g;

/** The repo files `file` reaches by runtime imports (type-only imports left out), and its bare specifiers. */
function closure(file: string): { files: Set<string>; specifiers: Set<string> } {
  const files = new Set<string>();
  const specifiers = new Set<string>();
  const visit = (f: string) => {
    if (files.has(f)) return;
    files.add(f);
    for (const m of fs.readFileSync(path.join(ROOT, f), "utf8").matchAll(IMPORT)) {
      if (m[1]) continue;
      const spec = m[2]!;
      const base = spec.startsWith("@/")
        ? spec.slice(2)
        : spec.startsWith(".")
          ? path.join(path.dirname(f), spec)
          : null;
      if (base === null) {
        specifiers.add(spec);
        continue;
      }
      const found = [`${base}.ts`, `${base}.tsx`, path.join(base, "index.ts"), base].find(
        (c) => fs.existsSync(path.join(ROOT, c)) && fs.statSync(path.join(ROOT, c)).isFile(),
      );
      if (found) visit(found);
    }
  };
  visit(file);
  return { files, specifiers };
}

it("the policies do not reach the executor", () => {
  for (const f of [
    "lib/runs/random-policy.ts",
    "lib/runs/replay-policy.ts",
    "lib/runs/script-policy.ts",
    "lib/runs/model-policy.ts",
  ]) {
    const { files } = closure(f);
    for (const x of ["lib/runs/executor.ts", "lib/runs/episode.ts", "lib/playground.ts"])
      expect(files.has(x), `${f} reaches ${x}`).toBe(false);
  }
});

it("the contract, statistics, conversation, tool schemas and exports are isomorphic", () => {
  for (const f of [
    "lib/runs/policy.ts",
    "lib/runs/stats.ts",
    "lib/runs/summary.ts",
    "lib/runs/conversation.ts",
    "lib/ors/protocol/tool-schema.ts",
    "lib/ors/protocol/tool-formats.ts",
    "lib/runs/exports.ts",
    "lib/runs/spec.ts",
    "lib/runs/tasks.ts",
    "lib/runs/random-policy.ts",
    "lib/runs/replay-policy.ts",
    "lib/relay/annotations.ts",
  ]) {
    const { specifiers } = closure(f);
    const server = [...specifiers].filter(
      (s) => s === "server-only" || s.startsWith("node:") || s === "better-sqlite3" || s === "undici",
    );
    expect(server, f).toEqual([]);
  }
});
