// What a package user is told (README.md, docs/): the package is private, so no line installs it by
// name from the registry; the install goes through the packed tarball, into an ES module package,
// with a tsconfig whose module resolution reads the package's `exports` (where `ors-playground/sdk`
// is). The lines themselves run from the real tarball in tests/cli/pack.test.ts.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { authoringExample, exampleCommands, REPO } from "./helpers";

/** README.md and every Markdown file under docs/. */
function userDocs(): string[] {
  const out = [path.join(REPO, "README.md")];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".md")) out.push(p);
    }
  };
  walk(path.join(REPO, "docs"));
  return out;
}

/** `npm install ... ors-playground` (or `i`, `add`) with the package named, not a path to a tarball. */
const BY_NAME = /\bnpm\s+(?:install|i|add)\b[^\n`]*?(?<![/\w.@-])ors-playground(?:@[^\s`]*)?(?![\w/.-])/;

describe("what a package user is told", () => {
  it("the package is private: no line of the README or the docs installs it by name", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8")) as { private?: boolean };
    expect(pkg.private).toBe(true);
    expect(BY_NAME.test("npm install --save-dev ors-playground")).toBe(true);
    expect(BY_NAME.test("npm i ors-playground@0.1.0")).toBe(true);
    expect(BY_NAME.test("npm install --save-dev ../ors-playground/ors-playground-*.tgz")).toBe(false);
    const offenders = userDocs().flatMap((file) =>
      fs
        .readFileSync(file, "utf8")
        .split("\n")
        .map((line, i) => ({ line, at: `${path.relative(REPO, file)}:${i + 1}` }))
        .filter(({ line }) => BY_NAME.test(line))
        .map(({ at, line }) => `${at}: ${line.trim()}`),
    );
    expect(offenders).toEqual([]);
  });

  it("the setup installs the packed tarball into an ES module package; the tsconfig reads `exports`", () => {
    const setup = exampleCommands("setup.sh").join("\n");
    expect(setup).toMatch(/npm pkg set type=module/);
    expect(setup).toMatch(/npm install --save-dev \S*ors-playground-\*\.tgz/);
    const tsconfig = JSON.parse(authoringExample("tsconfig.json")) as {
      compilerOptions: { module: string; moduleResolution: string; strict: boolean };
    };
    expect(["nodenext", "node16", "bundler"]).toContain(
      tsconfig.compilerOptions.moduleResolution.toLowerCase(),
    );
    expect(tsconfig.compilerOptions.strict).toBe(true);
    expect(authoringExample("envs.ts")).toMatch(/from "ors-playground\/sdk";/);
  });

  it("the README's install lines are the doc's, which the pack test runs", () => {
    expect(authoringExample("setup.sh", path.join(REPO, "README.md"))).toBe(authoringExample("setup.sh"));
  });
});
