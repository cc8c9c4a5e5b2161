// `npm pack`'s build step (package.json "prepack"): runs `next build` unless the production build
// in `.next` (or NEXT_DIST_DIR) is newer than every file it is built from. `npm test` builds once and
// its pack test reuses that build instead of building the same sources a second time; a source
// edited after the build, a missing build or ORS_FORCE_BUILD=1 builds again.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** What `next build` reads: the app's source folders and the files that configure the build. */
const INPUT_DIRS = ["app", "components", "lib", "envs", "public"];
const INPUT_FILES = [
  "proxy.ts",
  "instrumentation.ts",
  "next.config.mjs",
  "postcss.config.mjs",
  "tsconfig.json",
  "package.json",
  "package-lock.json",
];

/** The newest modification time under `dir` (ms), and the file that has it. */
function newest(dir: string, acc: { ms: number; file: string }): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) newest(p, acc);
    else if (entry.isFile()) {
      const ms = statSync(p).mtimeMs;
      if (ms > acc.ms) Object.assign(acc, { ms, file: p });
    }
  }
}

/** Why the build must run, or null when the existing one is up to date. */
export function staleReason(
  root: string,
  env: Record<string, string | undefined> = process.env,
): string | null {
  if (env.ORS_FORCE_BUILD === "1") return "ORS_FORCE_BUILD=1";
  const distDir = path.join(root, env.NEXT_DIST_DIR || ".next");
  const buildId = path.join(distDir, "BUILD_ID");
  if (!existsSync(buildId)) return `no production build in ${path.relative(root, distDir)}`;
  const built = statSync(buildId).mtimeMs;
  const acc = { ms: 0, file: "" };
  for (const d of INPUT_DIRS) if (existsSync(path.join(root, d))) newest(path.join(root, d), acc);
  for (const f of INPUT_FILES) {
    const p = path.join(root, f);
    if (existsSync(p) && statSync(p).mtimeMs > acc.ms)
      Object.assign(acc, { ms: statSync(p).mtimeMs, file: p });
  }
  return acc.ms > built ? `${path.relative(root, acc.file)} changed after the last build` : null;
}

const main = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (main) {
  const reason = staleReason(repoRoot);
  if (reason === null) {
    console.log(
      `the production build in ${process.env.NEXT_DIST_DIR || ".next"} is newer than its sources: reused`,
    );
  } else {
    console.log(`building the app (${reason})`);
    const r = spawnSync("npx", ["next", "build"], { cwd: repoRoot, stdio: "inherit" });
    process.exit(r.status ?? 1);
  }
}
