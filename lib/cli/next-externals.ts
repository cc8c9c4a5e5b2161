// Turbopack's production build loads the packages it leaves outside its bundles (better-sqlite3,
// next.config.mjs "serverExternalPackages") through aliases it links in `.next/node_modules`
// (`better-sqlite3-<hash>` → `../../node_modules/better-sqlite3`). npm never packs a node_modules
// folder, and an installed package's dependencies sit elsewhere anyway: so `npm pack` records the
// aliases (recordNextExternals, from scripts/pack-prepare.ts) and the CLI links them again to
// wherever the dependencies were installed before it starts Next (linkNextExternals).
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

export const EXTERNALS_MANIFEST = "ors-externals.json";

/** Writes `<distDir>/ors-externals.json`: each alias in `<distDir>/node_modules` and its package. */
export function recordNextExternals(distDir: string): Record<string, string> {
  const dir = path.join(distDir, "node_modules");
  const out: Record<string, string> = {};
  if (existsSync(dir)) {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const names = entry.name.startsWith("@")
        ? readdirSync(path.join(dir, entry.name)).map((n) => `${entry.name}/${n}`)
        : [entry.name];
      for (const alias of names) {
        const target = readlinkSync(path.join(dir, alias));
        const at = target.lastIndexOf("node_modules/");
        if (at < 0) throw new Error(`${alias} in ${dir} links to ${target}, not to a package`);
        out[alias] = target.slice(at + "node_modules/".length);
      }
    }
  }
  writeFileSync(path.join(distDir, EXTERNALS_MANIFEST), `${JSON.stringify(out, null, 2)}\n`);
  return out;
}

/** The folder of an installed package, as `root`'s package resolves it. */
function packageDir(root: string, name: string): string {
  const require = createRequire(path.join(root, "package.json"));
  try {
    return path.dirname(require.resolve(`${name}/package.json`));
  } catch {
    // A package whose "exports" hide package.json: walk up from its entry point.
    let dir = path.dirname(require.resolve(name));
    while (!existsSync(path.join(dir, "package.json")) && path.dirname(dir) !== dir) dir = path.dirname(dir);
    return dir;
  }
}

/** Links each recorded alias that does not resolve to its package; returns the aliases linked. */
export function linkNextExternals(distDir: string, root: string): string[] {
  const manifest = path.join(distDir, EXTERNALS_MANIFEST);
  if (!existsSync(manifest)) return [];
  const aliases = JSON.parse(readFileSync(manifest, "utf8")) as Record<string, string>;
  const linked: string[] = [];
  for (const [alias, name] of Object.entries(aliases)) {
    const link = path.join(distDir, "node_modules", alias);
    if (existsSync(path.join(link, "package.json"))) continue;
    const target = packageDir(root, name);
    mkdirSync(path.dirname(link), { recursive: true });
    // A link left dangling (the package moved, or the one the build made): replace it.
    rmSync(link, { force: true });
    symlinkSync(target, link, "dir");
    linked.push(alias);
  }
  return linked;
}
