// `npx tsx scripts/heap-summary.ts <a.heapsnapshot> [<b.heapsnapshot> ...]`: what a V8 heap snapshot
// holds, by kind (strings, arrays, code, each constructor's objects), and its largest objects with
// what retains them; with several snapshots, each kind's size in each, side by side (before/after).
import fs from "node:fs";
import path from "node:path";

const MB = 1024 * 1024;

interface Snapshot {
  snapshot: {
    meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

interface Summary {
  total: number;
  byKind: Map<string, { count: number; size: number }>;
  largest: Array<{ kind: string; size: number; retainer: string }>;
}

/** A node's kind: its type, and for objects and closures its constructor's name. */
function kindOf(type: string, name: string): string {
  if (type === "object" || type === "closure" || type === "native") return `${type} ${name.slice(0, 60)}`;
  return type;
}

function summarize(file: string, top: number): Summary {
  const s = JSON.parse(fs.readFileSync(file, "utf8")) as Snapshot;
  const nf = s.snapshot.meta.node_fields;
  const ef = s.snapshot.meta.edge_fields;
  const nodeTypes = s.snapshot.meta.node_types[0];
  const edgeTypes = s.snapshot.meta.edge_types[0];
  const [nType, nName, nSize, nEdges] = ["type", "name", "self_size", "edge_count"].map((f) => nf.indexOf(f));
  const [eType, eName, eTo] = ["type", "name_or_index", "to_node"].map((f) => ef.indexOf(f));
  const N = nf.length;
  const E = ef.length;
  const byKind = new Map<string, { count: number; size: number }>();
  let total = 0;
  const big: Array<{ at: number; size: number }> = [];
  for (let i = 0; i < s.nodes.length; i += N) {
    const size = s.nodes[i + nSize]!;
    total += size;
    const kind = kindOf(nodeTypes[s.nodes[i + nType]!]!, s.strings[s.nodes[i + nName]!]!);
    const k = byKind.get(kind) ?? { count: 0, size: 0 };
    k.count++;
    k.size += size;
    byKind.set(kind, k);
    if (size >= 64 * 1024) big.push({ at: i, size });
  }
  big.sort((a, b) => b.size - a.size);
  const wanted = new Map(big.slice(0, top).map((b) => [b.at, ""]));
  // One retainer of each large object: the first edge found that points at it.
  for (let i = 0, e = 0; i < s.nodes.length; i += N) {
    const from = `${nodeTypes[s.nodes[i + nType]!]} ${s.strings[s.nodes[i + nName]!]!.slice(0, 50)}`;
    for (let j = 0; j < s.nodes[i + nEdges]!; j++, e += E) {
      const to = s.edges[e + eTo]!;
      if (wanted.get(to) !== "") continue;
      const type = edgeTypes[s.edges[e + eType]!];
      const name =
        type === "element" || type === "hidden" ? `[${s.edges[e + eName]}]` : s.strings[s.edges[e + eName]!];
      wanted.set(to, `${from} .${name}`);
    }
  }
  const largest = big.slice(0, top).map((b) => ({
    kind: kindOf(nodeTypes[s.nodes[b.at + nType]!]!, s.strings[s.nodes[b.at + nName]!]!),
    size: b.size,
    retainer: wanted.get(b.at) || "(none found)",
  }));
  return { total, byKind, largest };
}

function main() {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    console.error("usage: tsx scripts/heap-summary.ts <a.heapsnapshot> [<b.heapsnapshot> ...]");
    process.exit(2);
  }
  const sums = files.map((f) => summarize(f, 15));
  const mb = (n: number) => (n / MB).toFixed(1).padStart(7);
  console.log(
    `${"".padEnd(58)}${files.map((f) => path.basename(f, ".heapsnapshot").slice(0, 9).padStart(10)).join("")}`,
  );
  console.log(`${"total (MB)".padEnd(58)}${sums.map((x) => `${mb(x.total)}   `).join("")}`);
  const kinds = new Set(sums.flatMap((x) => [...x.byKind.keys()]));
  const rows = [...kinds].map((k) => ({ k, sizes: sums.map((x) => x.byKind.get(k)?.size ?? 0) }));
  rows.sort((a, b) => Math.max(...b.sizes) - Math.max(...a.sizes));
  for (const r of rows.slice(0, 30))
    console.log(`${r.k.slice(0, 57).padEnd(58)}${r.sizes.map((n) => `${mb(n)}   `).join("")}`);
  sums.forEach((x, i) => {
    console.log(`\nlargest objects in ${path.basename(files[i]!)}:`);
    for (const b of x.largest)
      console.log(`  ${mb(b.size)} MB  ${b.kind.slice(0, 40).padEnd(40)}  ← ${b.retainer}`);
  });
}

main();
