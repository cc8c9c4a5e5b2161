// A file is one thing: no source file of lib/, app/ or components/ is over 500 lines (a longer one
// splits by responsibility, as lib/ors/host/ and lib/conformance/checks/ did).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "..");
const MAX_LINES = 500;

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(rel));
    else if (/\.(ts|tsx|mjs)$/.test(e.name)) out.push(rel);
  }
  return out;
}

describe("source files", () => {
  it(`are at most ${MAX_LINES} lines in lib/, app/ and components/`, () => {
    const files = ["lib", "app", "components"].flatMap(sources);
    expect(files.length).toBeGreaterThan(100);
    const long = files
      .map((f) => ({ f, lines: fs.readFileSync(path.join(ROOT, f), "utf8").split("\n").length }))
      .filter((x) => x.lines > MAX_LINES)
      .map((x) => `${x.f}: ${x.lines} lines`);
    expect(long).toEqual([]);
  });
});
