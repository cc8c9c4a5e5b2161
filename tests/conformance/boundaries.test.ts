// The conformance check's layering: lib/conformance runs on any `fetch` (no Node modules, no server
// parts at run time; `import type` is erased), but for the one module that plays the quality checks
// through the playground (server-only, and saying so); the check page's components load only its
// light, isomorphic modules.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "../..");

/** The quality checks' player: the runs, the store and the relay are what it drives. */
const QUALITY_PLAYER = "lib/conformance/quality/run-quality.ts";

/** The runtime imports of every module under `dir`, its subfolders included (`import type` left out). */
function imports(dir: string): { file: string; spec: string }[] {
  const out: { file: string; spec: string }[] = [];
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const name = entry.name;
    if (entry.isDirectory()) {
      out.push(...imports(`${dir}/${name}`));
      continue;
    }
    if (!/\.tsx?$/.test(name)) continue;
    const text = readFileSync(path.join(ROOT, dir, name), "utf8");
    for (const m of text.matchAll(/^(?:import|export)(?!\s+type\s)[^;]*?from\s+"([^"]+)"/gm))
      out.push({ file: `${dir}/${name}`, spec: m[1]! });
    for (const m of text.matchAll(/^import\s+"([^"]+)"/gm)) out.push({ file: `${dir}/${name}`, spec: m[1]! });
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
        file !== QUALITY_PLAYER &&
        /^(node:|server-only$|@\/lib\/(playground|registry|relay|episodes|runs|ors\/host|ors\/sdk)|@\/envs)/.test(
          spec,
        ),
    );
    expect(bad).toEqual([]);
    // The quality checks' own folder is read too; its player says it is server-only.
    expect(found.some(({ file }) => file.startsWith("lib/conformance/quality/"))).toBe(true);
    expect(readFileSync(path.join(ROOT, QUALITY_PLAYER), "utf8")).toContain('import "server-only";');
  });

  it("the check page's components use only the catalogue's light modules, no runner", () => {
    const found = imports("components/conformance").filter(({ spec }) => spec.startsWith("@/lib/"));
    expect(found.length).toBeGreaterThan(0);
    const allowed =
      /^@\/lib\/(conformance\/(labels|types|frameworks|quality\/(labels|types))|ui\/.+|ors\/protocol\/errors)$/;
    expect(found.filter(({ spec }) => !allowed.test(spec))).toEqual([]);
  });
});
