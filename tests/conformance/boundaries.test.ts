// The conformance check's layering: lib/conformance runs on any `fetch` (no Node modules, no server
// parts at run time; `import type` is erased), but for the modules that play episodes through the
// playground (the quality checks' and the probe's players, server-only and saying so); the pure
// leaves of lib/runs (statistics, summaries, task sampling, the random policy) and the SDK are
// isomorphic themselves, which this test checks too; the check page's components load only its
// light, isomorphic modules.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "../..");

/** The quality checks' player: the runs, the store and the relay are what it drives. */
const QUALITY_PLAYER = "lib/conformance/quality/run-quality.ts";

/** The modules outside lib/conformance it may load: pure, with no Node module and no server part. */
const ISOMORPHIC_LEAVES = [
  "lib/runs/stats",
  "lib/runs/summary",
  "lib/runs/tasks",
  "lib/runs/random-policy",
  "lib/runs/errors",
  "lib/ors/sdk",
];

const SERVER_PART =
  /^(node:|server-only$|@\/lib\/(playground|registry|relay|episodes|runs|ors\/host|ors\/sdk)|@\/envs)/;

function saysServerOnly(file: string): boolean {
  return /^import "server-only";$/m.test(readFileSync(path.join(ROOT, file), "utf8"));
}

/** The runtime imports of one module (`import type` left out). */
function importsOf(file: string): { file: string; spec: string }[] {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  const out: { file: string; spec: string }[] = [];
  for (const m of text.matchAll(/^(?:import|export)(?!\s+type\s)[^;]*?from\s+"([^"]+)"/gm))
    out.push({ file, spec: m[1]! });
  for (const m of text.matchAll(/^import\s+"([^"]+)"/gm)) out.push({ file, spec: m[1]! });
  return out;
}

/** The runtime imports of every module under `dir`, its subfolders included. */
function imports(dir: string): { file: string; spec: string }[] {
  const out: { file: string; spec: string }[] = [];
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    if (entry.isDirectory()) out.push(...imports(`${dir}/${entry.name}`));
    else if (/\.tsx?$/.test(entry.name)) out.push(...importsOf(`${dir}/${entry.name}`));
  }
  return out;
}

describe("conformance boundaries", () => {
  it("lib/conformance imports no Node module and no server part", () => {
    const found = imports("lib/conformance");
    expect(found.length).toBeGreaterThan(10);
    // The checks' own folder is read too.
    expect(found.some(({ file }) => file.startsWith("lib/conformance/checks/"))).toBe(true);
    const bad = found.filter(
      ({ file, spec }) =>
        !saysServerOnly(file) &&
        SERVER_PART.test(spec) &&
        !ISOMORPHIC_LEAVES.includes(spec.replace(/^@\//, "")),
    );
    expect(bad).toEqual([]);
    // The quality checks' own folder is read too; its player says it is server-only.
    expect(found.some(({ file }) => file.startsWith("lib/conformance/quality/"))).toBe(true);
    expect(readFileSync(path.join(ROOT, QUALITY_PLAYER), "utf8")).toContain('import "server-only";');
  });

  it("the leaves of lib/runs and the SDK it loads are isomorphic themselves", () => {
    for (const leaf of ISOMORPHIC_LEAVES) {
      const found = existsSync(path.join(ROOT, leaf)) ? imports(leaf) : importsOf(`${leaf}.ts`);
      const bad = found.filter(
        ({ spec }) =>
          SERVER_PART.test(spec) &&
          !ISOMORPHIC_LEAVES.includes(spec.replace(/^@\//, "")) &&
          spec !== "@/envs/shared/seeded-random",
      );
      expect(bad).toEqual([]);
    }
  });

  it("the check page's components use only the catalogue's light modules, no runner", () => {
    const found = imports("components/conformance").filter(({ spec }) => spec.startsWith("@/lib/"));
    expect(found.length).toBeGreaterThan(0);
    const allowed =
      /^@\/lib\/(conformance\/(labels|types|frameworks|quality\/(labels|types))|ui\/.+|ors\/protocol\/errors)$/;
    expect(found.filter(({ spec }) => !allowed.test(spec))).toEqual([]);
  });
});
