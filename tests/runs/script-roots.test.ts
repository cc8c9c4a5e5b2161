// The folders a script policy may be loaded from (lib/runs/policies.ts), on real files: a module
// inside an allowed folder plays; a symlink inside one that points outside is refused, as is a
// module in node_modules (or a root inside one); refused with 403 by the policy builder.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ModelRegistry } from "@/lib/runs/models";
import { insideRoots, policyFromSpec } from "@/lib/runs/policies";
import type { PlaygroundStore } from "@/lib/store/types";

const base = fs.mkdtempSync(path.join(os.tmpdir(), "script-roots-"));
const root = path.join(base, "allowed");
const outside = path.join(base, "elsewhere");
for (const d of [root, outside, path.join(root, "node_modules", "pkg")]) fs.mkdirSync(d, { recursive: true });
const policy = "export default () => null;\n";
fs.writeFileSync(path.join(root, "mine.mjs"), policy);
fs.writeFileSync(path.join(outside, "evil.mjs"), policy);
fs.writeFileSync(path.join(root, "node_modules", "pkg", "dep.mjs"), policy);
fs.symlinkSync(path.join(outside, "evil.mjs"), path.join(root, "link.mjs"));
fs.symlinkSync(outside, path.join(root, "linked-dir"));

afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const deps = {
  store: {} as PlaygroundStore,
  models: {} as ModelRegistry,
  cwd: root,
  scriptRoots: [root],
};

describe("the folders scripts may run from", () => {
  it("resolves real paths: a link inside pointing outside is outside", () => {
    expect(insideRoots(path.join(root, "mine.mjs"), [root])).toBe(true);
    expect(insideRoots(path.join(root, "link.mjs"), [root])).toBe(false);
    expect(insideRoots(path.join(root, "linked-dir", "evil.mjs"), [root])).toBe(false);
    expect(insideRoots(path.join(outside, "evil.mjs"), [root])).toBe(false);
    // A root given through a link is the folder it points to.
    const viaLink = path.join(base, "root-link");
    fs.symlinkSync(root, viaLink);
    expect(insideRoots(path.join(root, "mine.mjs"), [viaLink])).toBe(true);
  });

  it("allows nothing in node_modules, and no root inside one", () => {
    expect(insideRoots(path.join(root, "node_modules", "pkg", "dep.mjs"), [root])).toBe(false);
    const nm = path.join(root, "node_modules");
    expect(insideRoots(path.join(nm, "pkg", "dep.mjs"), [nm])).toBe(false);
  });

  it("refuses such a module with 403 before loading it, and loads one inside", async () => {
    for (const module of ["link.mjs", "linked-dir/evil.mjs", "node_modules/pkg/dep.mjs"])
      await expect(policyFromSpec({ kind: "script", module }, deps)).rejects.toMatchObject({
        status: 403,
        detail: expect.stringMatching(/outside the folders scripts may run from/),
      });
    expect(await policyFromSpec({ kind: "script", module: "mine.mjs" }, deps)).toMatchObject({
      kind: "script",
      label: "script mine.mjs",
    });
  });
});
