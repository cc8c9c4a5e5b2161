// A file is one thing: no source file of lib/, app/ or components/ is over 500 lines (a longer one
// splits by responsibility, as lib/ors/host/ and lib/conformance/checks/ did).
import { describe, expect, it } from "vitest";
import { readSource, sourceFiles } from "./support/source-files";

const MAX_LINES = 500;

describe("source files", () => {
  it(`are at most ${MAX_LINES} lines in lib/, app/ and components/`, () => {
    const files = sourceFiles(["lib", "app", "components"]);
    expect(files.length).toBeGreaterThan(100);
    const long = files
      .map((f) => ({ f, lines: readSource(f).split("\n").length }))
      .filter((x) => x.lines > MAX_LINES)
      .map((x) => `${x.f}: ${x.lines} lines`);
    expect(long).toEqual([]);
  });
});
