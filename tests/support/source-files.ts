// The repository's source files under some folders (relative paths), for the tests that hold all of
// them to a rule: a size, who reads the process's environment, where a header set is written.
import fs from "node:fs";
import path from "node:path";

export const ROOT = path.resolve(__dirname, "../..");

/** Every file under `dirs` whose name matches `pattern` (default: TypeScript and ES modules). */
export function sourceFiles(dirs: readonly string[], pattern = /\.(ts|tsx|mjs)$/): string[] {
  const walk = (dir: string): string[] =>
    fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) return walk(rel);
      return pattern.test(e.name) ? [rel] : [];
    });
  return dirs.flatMap(walk);
}

/** The text of a repository file. */
export function readSource(rel: string): string {
  return fs.readFileSync(path.join(ROOT, rel), "utf8");
}
