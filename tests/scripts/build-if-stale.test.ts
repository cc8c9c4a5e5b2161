// prepack's build step reuses a production build only when no source is newer than it.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { staleReason } from "../../scripts/build-if-stale";

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function project(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), "ors-build-stale-"));
  roots.push(root);
  mkdirSync(path.join(root, "lib", "deep"), { recursive: true });
  writeFileSync(path.join(root, "lib", "deep", "a.ts"), "export {};\n");
  writeFileSync(path.join(root, "package.json"), "{}\n");
  return root;
}

function build(root: string, dist = ".next"): string {
  mkdirSync(path.join(root, dist), { recursive: true });
  const id = path.join(root, dist, "BUILD_ID");
  writeFileSync(id, "x");
  return id;
}

const at = (file: string, secondsAgo: number) => {
  const t = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(file, t, t);
};

describe("build-if-stale", () => {
  it("builds when there is no build", () => {
    expect(staleReason(project(), {})).toBe("no production build in .next");
  });

  it("reuses a build newer than every source", () => {
    const root = project();
    at(path.join(root, "lib", "deep", "a.ts"), 60);
    at(path.join(root, "package.json"), 60);
    build(root);
    expect(staleReason(root, {})).toBeNull();
  });

  it("builds again when a source, deep or at the top, changed after the build", () => {
    const root = project();
    at(build(root), 30);
    at(path.join(root, "package.json"), 60);
    expect(staleReason(root, {})).toBe(`${path.join("lib", "deep", "a.ts")} changed after the last build`);
    at(path.join(root, "lib", "deep", "a.ts"), 60);
    expect(staleReason(root, {})).toBeNull();
    writeFileSync(path.join(root, "package.json"), "{ }\n");
    expect(staleReason(root, {})).toBe("package.json changed after the last build");
  });

  it("reads NEXT_DIST_DIR, and ORS_FORCE_BUILD=1 always builds", () => {
    const root = project();
    at(path.join(root, "lib", "deep", "a.ts"), 60);
    at(path.join(root, "package.json"), 60);
    build(root, ".next-other");
    expect(staleReason(root, {})).toBe("no production build in .next");
    expect(staleReason(root, { NEXT_DIST_DIR: ".next-other" })).toBeNull();
    expect(staleReason(root, { NEXT_DIST_DIR: ".next-other", ORS_FORCE_BUILD: "1" })).toBe(
      "ORS_FORCE_BUILD=1",
    );
  });
});
