// The repository stands on its own: every relative link in the README and the docs resolves to a
// file of the repository, and no source comment or document cites a path outside it.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readSource, sourceFiles } from "./support/source-files";

const ROOT = path.resolve(__dirname, "..");

function markdownFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, e.name);
    if (e.isDirectory() && !["node_modules", ".git", ".data"].includes(e.name) && !e.name.startsWith(".next"))
      out.push(...markdownFiles(rel));
    else if (e.isFile() && e.name.endsWith(".md")) out.push(rel);
  }
  return out;
}

const docs = ["README.md", ...["docs", "lib", "scripts", "tests"].flatMap(markdownFiles)];

describe("the repository stands on its own", () => {
  it("every relative link of the README and the docs resolves inside the repository", () => {
    const broken: string[] = [];
    for (const file of docs) {
      const text = fs.readFileSync(path.join(ROOT, file), "utf8");
      for (const m of text.matchAll(/\]\(([^)\s#]+)(#[^)]*)?\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/i.test(target)) continue; // a URL
        const resolved = path.resolve(ROOT, path.dirname(file), target);
        if (!resolved.startsWith(ROOT + path.sep) || !fs.existsSync(resolved))
          broken.push(`${file}: ${target}`);
      }
    }
    expect(docs.length).toBeGreaterThan(3);
    expect(broken).toEqual([]);
  });

  it("nothing cites the steering documents outside the repository", () => {
    const outside = /\.\.\/shared\/|\bDESIGN\.md\b|\bSTYLE\.md\b/;
    const files = sourceFiles(
      ["app", "components", "lib", "envs", "scripts", "e2e", "docs"],
      /\.(ts|tsx|mjs|md)$/,
    );
    const offenders = [...files, "README.md"].filter((f) => outside.test(readSource(f)));
    expect(offenders).toEqual([]);
  });
});

describe("the README is a front page", () => {
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");

  it("fits in 300 lines", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(300);
  });

  it("links every page of docs/", () => {
    const pages = fs.readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md"));
    expect(pages.length).toBeGreaterThan(5);
    expect(pages.filter((f) => !readme.includes(`(docs/${f}`))).toEqual([]);
  });
});
