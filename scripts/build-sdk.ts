// `npm run build:sdk` (run by `npm pack`): the SDK as the package exports it, `ors-playground/sdk`
// (package.json "exports"), for authors' tools that do not compile the package's TypeScript (an
// editor, tsc, a test runner): one ES module bundle, dist/sdk/index.js (zod and ajv stay imports of
// the package's dependencies), and its declarations, dist/sdk/**/*.d.ts, with `.js` on every
// relative import so that "moduleResolution": "nodenext" finds them as well as "bundler" does.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = path.join(root, "dist/sdk");
rmSync(out, { recursive: true, force: true });

await build({
  entryPoints: [path.join(root, "lib/ors/sdk/package-entry.ts")],
  outfile: path.join(out, "index.js"),
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  sourcemap: true,
  logLevel: "warning",
});

execFileSync(
  process.execPath,
  [path.join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.sdk.json"],
  {
    cwd: root,
    stdio: "inherit",
  },
);

/** `from "./x"` → `from "./x.js"` (or `./x/index.js`), as Node's ESM resolution wants. */
function withExtensions(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      withExtensions(file);
      continue;
    }
    if (!entry.name.endsWith(".d.ts")) continue;
    const text = readFileSync(file, "utf8").replace(
      /(from\s+|import\()(["'])(\.{1,2}\/[^"']+)\2/g,
      (whole, head: string, quote: string, spec: string) => {
        if (/\.(js|mjs|cjs|json)$/.test(spec)) return whole;
        const target = path.resolve(path.dirname(file), spec);
        const fixed = existsSync(`${target}.d.ts`)
          ? `${spec}.js`
          : existsSync(path.join(target, "index.d.ts"))
            ? `${spec}/index.js`
            : null;
        if (!fixed)
          throw new Error(
            `build-sdk: ${path.relative(root, file)} imports ${spec}, which has no declaration`,
          );
        return `${head}${quote}${fixed}${quote}`;
      },
    );
    writeFileSync(file, text);
  }
}
withExtensions(out);

const types = path.join(out, "ors/sdk/package-entry.d.ts");
if (!existsSync(types)) throw new Error(`build-sdk: no ${path.relative(root, types)}`);
console.log(`SDK built: ${path.relative(root, path.join(out, "index.js"))}, ${path.relative(root, types)}`);
