// The layering rules as a test (docs/architecture.md "Layers"): the protocol is isomorphic, the
// host knows nothing of Next.js, components reach no server code, lib/ nothing in app/, and the
// import graph of the app's own modules has no cycles. Imports are read from the source files
// (static, re-exports and dynamic ones); `import type` is erased at build time and so left out of
// the runtime rules, but not of the cycle check.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "..");
const SOURCE_DIRS = ["app", "components", "lib", "envs"];
const EXTENSIONS = [".ts", ".tsx", ".mjs"];

interface Import {
  specifier: string;
  typeOnly: boolean;
  /** The repo file it resolves to (for the app's own modules), relative to the root. */
  file: string | null;
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(rel));
    else if (EXTENSIONS.some((e) => entry.name.endsWith(e)) && !entry.name.endsWith(".d.ts")) out.push(rel);
  }
  return out;
}

function resolveFile(from: string, specifier: string): string | null {
  let base: string;
  if (specifier.startsWith("@/")) base = specifier.slice(2);
  else if (specifier.startsWith(".")) base = path.join(path.dirname(from), specifier);
  else return null;
  const candidates = [
    base,
    ...EXTENSIONS.map((e) => base + e),
    ...EXTENSIONS.map((e) => path.join(base, `index${e}`)),
  ];
  for (const c of candidates)
    if (fs.existsSync(path.join(ROOT, c)) && fs.statSync(path.join(ROOT, c)).isFile()) return c;
  return null;
}

const IMPORT_RE =
  /(?:^|[;\n])\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function importsOf(file: string): Import[] {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  const out: Import[] = [];
  for (const m of text.matchAll(IMPORT_RE)) {
    const specifier = m[3] ?? m[4]!;
    // `import { type A, type B } from` is type-only too when every name is a type.
    const clause = m[0];
    const named = /\{([^}]*)\}/.exec(clause)?.[1];
    const allTypes =
      !!named &&
      !/^\s*import\s+[A-Za-z_$]/.test(clause.replace(/^[;\n\s]*/, "").replace(/^import\s+type/, "")) &&
      named
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
        .every((s) => s.startsWith("type "));
    out.push({ specifier, typeOnly: !!m[2] || allTypes, file: resolveFile(file, specifier) });
  }
  return out;
}

const files = SOURCE_DIRS.flatMap(walk);
const graph = new Map(files.map((f) => [f, importsOf(f)]));

/** Every module reachable from `file` by runtime imports (type-only ones left out). */
function runtimeClosure(file: string): Set<string> {
  const seen = new Set<string>();
  const stack = [file];
  while (stack.length) {
    const f = stack.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    for (const i of graph.get(f) ?? []) if (!i.typeOnly && i.file) stack.push(i.file);
  }
  return seen;
}

/** Runtime imports (specifiers) of everything reachable from `file`, with the chain that leads there. */
function reachableSpecifiers(file: string): { specifier: string; via: string }[] {
  const out: { specifier: string; via: string }[] = [];
  for (const f of runtimeClosure(file))
    for (const i of graph.get(f) ?? []) if (!i.typeOnly) out.push({ specifier: i.specifier, via: f });
  return out;
}

const SERVER_ONLY = (s: string) =>
  s === "server-only" ||
  s.startsWith("node:") ||
  s === "better-sqlite3" ||
  s === "pg" ||
  s === "next/server" ||
  s === "undici";
const SERVER_MODULES = [
  "lib/playground.ts",
  "lib/relay/",
  "lib/registry/",
  "lib/ors/host/",
  "lib/episodes/recorder.ts",
  "lib/episodes/store/",
  "lib/episodes/live.ts",
  "lib/episodes/live-postgres.ts",
  "lib/episodes/leases.ts",
  "lib/episodes/live-sse.ts",
  "lib/episodes/http.ts",
  "lib/episodes/fork.ts",
  "lib/app-server/",
  "lib/security/",
];

describe("layers", () => {
  it("finds the app's modules and their imports", () => {
    expect(files.length).toBeGreaterThan(100);
    expect(graph.get("lib/playground.ts")!.some((i) => i.file === "lib/ors/host/index.ts")).toBe(true);
  });

  it("the protocol is isomorphic: it imports only itself, zod and eventsource-parser", () => {
    const bad: string[] = [];
    for (const f of files.filter((x) => x.startsWith("lib/ors/protocol/")))
      for (const i of graph.get(f)!) {
        const ok =
          i.file?.startsWith("lib/ors/protocol/") ||
          i.specifier === "zod" ||
          i.specifier === "eventsource-parser";
        if (!ok) bad.push(`${f} imports ${i.specifier}`);
      }
    expect(bad).toEqual([]);
  });

  it("the host imports no Next.js, React or app part: only the protocol, the SDK and Node", () => {
    const bad: string[] = [];
    for (const f of files.filter((x) => x.startsWith("lib/ors/host/")))
      for (const i of graph.get(f)!) {
        const ok =
          i.file?.startsWith("lib/ors/host/") ||
          i.file?.startsWith("lib/ors/protocol/") ||
          i.file?.startsWith("lib/ors/sdk/") ||
          i.specifier === "zod" ||
          i.specifier.startsWith("node:");
        if (!ok) bad.push(`${f} imports ${i.specifier}`);
      }
    expect(bad).toEqual([]);
  });

  it("the SDK and the client are isomorphic (no Node, no server-only, no app part)", () => {
    const bad: string[] = [];
    for (const f of files.filter((x) => x.startsWith("lib/ors/sdk/") || x.startsWith("lib/ors/client/")))
      for (const { specifier, via } of reachableSpecifiers(f))
        if (SERVER_ONLY(specifier)) bad.push(`${f} reaches ${specifier} (via ${via})`);
    expect(bad).toEqual([]);
  });

  it("components and client hooks reach no server code", () => {
    const bad: string[] = [];
    const clientSide = files.filter((f) => f.startsWith("components/") || f.startsWith("lib/ui/"));
    for (const f of clientSide) {
      if (f === "lib/ui/server-lookup.ts") continue; // server components' look-ups: server-only by design
      for (const m of runtimeClosure(f))
        if (SERVER_MODULES.some((s) => m === s || m.startsWith(s))) bad.push(`${f} reaches ${m}`);
      for (const { specifier, via } of reachableSpecifiers(f))
        if (SERVER_ONLY(specifier)) bad.push(`${f} reaches ${specifier} (via ${via})`);
    }
    expect([...new Set(bad)]).toEqual([]);
  });

  it("server modules of the app say so (those that use Node, SQLite or undici)", () => {
    // The ORS core (host, SDK, client, protocol) and the CLI run under plain Node too, where the
    // `server-only` package would throw: they are not the app's server modules.
    const missing = files
      .filter((f) => f.startsWith("lib/") && !f.startsWith("lib/ors/") && !f.startsWith("lib/cli/"))
      .filter((f) =>
        graph.get(f)!.some((i) => !i.typeOnly && SERVER_ONLY(i.specifier) && i.specifier !== "server-only"),
      )
      .filter((f) => !fs.readFileSync(path.join(ROOT, f), "utf8").includes('import "server-only"'));
    expect(missing).toEqual([]);
  });

  it("lib/ imports nothing from app/", () => {
    const bad: string[] = [];
    for (const f of files.filter((x) => x.startsWith("lib/")))
      for (const i of graph.get(f)!) if (i.file?.startsWith("app/")) bad.push(`${f} imports ${i.specifier}`);
    expect(bad).toEqual([]);
  });

  it("the import graph has no cycles", () => {
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const onStack = new Set<string>();
    const stack: string[] = [];
    const cycles: string[][] = [];
    let n = 0;
    const visit = (v: string) => {
      index.set(v, n);
      low.set(v, n);
      n++;
      stack.push(v);
      onStack.add(v);
      for (const i of graph.get(v) ?? []) {
        const w = i.file;
        if (!w || !graph.has(w)) continue;
        if (!index.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
      if (low.get(v) === index.get(v)) {
        const scc: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          scc.push(w);
        } while (w !== v);
        const selfLoop = graph.get(v)!.some((i) => i.file === v);
        if (scc.length > 1 || selfLoop) cycles.push(scc.sort());
      }
    };
    for (const f of files) if (!index.has(f)) visit(f);
    expect(cycles).toEqual([]);
  });
});
