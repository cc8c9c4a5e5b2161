// The layering rules (docs/layers.json) as code: the app's import graph read from its sources, the
// checker that lists every break of the rules in a graph, and the table docs/architecture.md shows.
// Pure over the graph, so tests/boundaries.test.ts can also run the checker on tiny in-memory graphs.
import fs from "node:fs";
import path from "node:path";

export type Runs = "isomorphic" | "client" | "server" | "node" | "next";

export interface Part {
  /** A folder (`lib/relay`) or one file (`lib/playground.ts`), relative to the repo's root. */
  path: string;
  what: string;
  runs: Runs;
  /** Parts its modules may import at run time (its own modules always). */
  mayImport: string[];
  /** Parts it may take types from only (`import type`, erased at build time). */
  mayImportTypes?: string[];
  /** When given, the only packages it may import (`node:*`: any built-in; a name allows its subpaths). */
  packages?: string[];
  /** Modules of a `server` part that must run before `server-only` can be imported, and why. */
  withoutServerOnly?: Record<string, string>;
  why?: string;
}

export interface LayerRules {
  serverOnlyPackages: string[];
  parts: Part[];
}

export interface Import {
  specifier: string;
  typeOnly: boolean;
  /** The repo file it resolves to (for the app's own modules), relative to the root. */
  file: string | null;
}

/** Each module (relative path) and its imports. */
export type ImportGraph = Map<string, Import[]>;

const EXTENSIONS = [".ts", ".tsx", ".mjs"];

const IMPORT_RE =
  /(?:^|[;\n])\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** The import graph of the source files under `dirs` (static, re-exported and dynamic imports). */
export function readImportGraph(root: string, dirs: string[]): ImportGraph {
  const walk = (dir: string): string[] => {
    const out: string[] = [];
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) out.push(...walk(rel));
      else if (EXTENSIONS.some((e) => entry.name.endsWith(e)) && !entry.name.endsWith(".d.ts")) out.push(rel);
    }
    return out;
  };
  const isFile = (rel: string) =>
    fs.existsSync(path.join(root, rel)) && fs.statSync(path.join(root, rel)).isFile();
  const resolve = (from: string, specifier: string): string | null => {
    let base: string;
    if (specifier.startsWith("@/")) base = specifier.slice(2);
    else if (specifier.startsWith(".")) base = path.join(path.dirname(from), specifier);
    else return null;
    const candidates = [
      base,
      ...EXTENSIONS.map((e) => base + e),
      ...EXTENSIONS.map((e) => path.join(base, `index${e}`)),
    ];
    return candidates.find(isFile) ?? null;
  };
  const graph: ImportGraph = new Map();
  for (const file of dirs.flatMap(walk)) {
    const text = fs.readFileSync(path.join(root, file), "utf8");
    const imports: Import[] = [];
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
      imports.push({ specifier, typeOnly: !!m[2] || allTypes, file: resolve(file, specifier) });
    }
    graph.set(file, imports);
  }
  return graph;
}

const matchesPackage = (specifier: string, pkg: string) =>
  pkg === "node:*" ? specifier.startsWith("node:") : specifier === pkg || specifier.startsWith(`${pkg}/`);

/** The part a module belongs to: the longest part path that is the file or a folder holding it. */
export function partOf(rules: LayerRules, file: string): Part | undefined {
  let best: Part | undefined;
  for (const p of rules.parts)
    if ((file === p.path || file.startsWith(`${p.path}/`)) && (!best || p.path.length > best.path.length))
      best = p;
  return best;
}

/** Every module reachable from `file` by runtime imports (type-only ones left out). */
function runtimeClosure(graph: ImportGraph, file: string): Set<string> {
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

/** Every break of the rules in `graph`, one line each (empty when the code keeps them). */
export function checkLayers(rules: LayerRules, graph: ImportGraph): string[] {
  const breaks: string[] = [];
  const names = new Set(rules.parts.map((p) => p.path));
  for (const p of rules.parts)
    for (const q of [...p.mayImport, ...(p.mayImportTypes ?? [])])
      if (!names.has(q)) breaks.push(`${p.path} names ${q}, which is no part`);
  const serverOnly = (s: string) => rules.serverOnlyPackages.some((pkg) => matchesPackage(s, pkg));

  for (const [file, imports] of graph) {
    const part = partOf(rules, file);
    if (!part) {
      breaks.push(`${file} belongs to no part`);
      continue;
    }
    for (const i of imports) {
      if (i.file) {
        const target = partOf(rules, i.file);
        if (!target || target === part) continue;
        const allowed = i.typeOnly ? [...part.mayImport, ...(part.mayImportTypes ?? [])] : part.mayImport;
        if (!allowed.includes(target.path))
          breaks.push(
            `${file} imports ${i.specifier}${i.typeOnly ? " (types)" : ""}: ${part.path} may not import ${target.path}`,
          );
      } else if (
        part.packages &&
        !i.specifier.startsWith(".") &&
        !i.specifier.startsWith("@/") &&
        !part.packages.some((pkg) => matchesPackage(i.specifier, pkg))
      )
        breaks.push(`${file} imports ${i.specifier}: ${part.path} imports only ${part.packages.join(", ")}`);
    }
    if (part.runs === "isomorphic" || part.runs === "client") {
      for (const m of runtimeClosure(graph, file))
        for (const i of graph.get(m) ?? [])
          if (!i.typeOnly && serverOnly(i.specifier))
            breaks.push(`${file} reaches ${i.specifier} (via ${m}): ${part.path} runs in the browser too`);
    }
    if (
      part.runs === "server" &&
      !part.withoutServerOnly?.[file] &&
      imports.some((i) => !i.typeOnly && serverOnly(i.specifier) && i.specifier !== "server-only") &&
      !imports.some((i) => i.specifier === "server-only")
    )
      breaks.push(`${file} uses a server-only package but does not say import "server-only"`);
  }
  return [...new Set(breaks)];
}

/** The strongly connected groups of modules (cycles) of the whole graph, type-only imports included. */
export function findCycles(graph: ImportGraph): string[][] {
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
  for (const f of graph.keys()) if (!index.has(f)) visit(f);
  return cycles;
}

/**
 * The cycles between parts: the graph of which part imports which (type-only imports included: a
 * type is a dependency of the design, if not of the build), each group of parts that reach each
 * other, named by their paths. Modules in no part are left out.
 */
export function findPartCycles(rules: LayerRules, graph: ImportGraph): string[][] {
  const parts: ImportGraph = new Map();
  for (const [file, imports] of graph) {
    const from = partOf(rules, file)?.path;
    if (!from) continue;
    const edges = parts.get(from) ?? [];
    parts.set(from, edges);
    for (const i of imports) {
      const to = i.file ? partOf(rules, i.file)?.path : undefined;
      if (to && to !== from && !edges.some((e) => e.file === to))
        edges.push({ specifier: i.specifier, typeOnly: i.typeOnly, file: to });
    }
  }
  return findCycles(parts);
}

const RUNS_WORDS: Record<Runs, string> = {
  isomorphic: "isomorphic",
  client: "browser",
  server: "server",
  node: "Node",
  next: "Next",
};

/** The table of parts docs/architecture.md shows between its `layers` markers. */
export function renderLayers(rules: LayerRules): string {
  const code = (s: string) => `\`${s}\``;
  const rows = rules.parts.map((p) => {
    const imports = p.mayImport.length ? p.mayImport.map(code).join(", ") : "no other part";
    const extra = [
      p.mayImportTypes?.length ? `types from ${p.mayImportTypes.map(code).join(", ")}` : "",
      p.packages
        ? p.packages.length
          ? `packages: ${p.packages.map(code).join(", ")} only`
          : "no package"
        : "",
      ...Object.entries(p.withoutServerOnly ?? {}).map(
        ([f, why]) => `${code(f)} without \`server-only\` (${why})`,
      ),
      p.why ? `(${p.why})` : "",
    ].filter(Boolean);
    const cells = [code(p.path), p.what, RUNS_WORDS[p.runs], [imports, ...extra].join("; ")];
    return `| ${cells.map((c) => c.replaceAll("|", "\\|")).join(" | ")} |`;
  });
  return ["| Part | What it is | Runs | May import |", "| --- | --- | --- | --- |", ...rows].join("\n");
}
