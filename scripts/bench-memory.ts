// The benchmarks' view of a server's memory beyond its RSS: the parts V8 and Node account for (read
// from ./bench-memory-probe.mjs, loaded into the server) and heap snapshots taken on a signal
// (`node --heapsnapshot-signal`), summarized by ./heap-summary.ts.
import fs from "node:fs";
import path from "node:path";

/** One reading of ./bench-memory-probe.mjs, in bytes. */
export interface MemoryReading {
  at: number;
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  /** Resident memory that is anonymous (heap, malloc) and file-backed (code, mapped files); Linux. */
  rssAnon: number;
  rssFile: number;
  /** Each V8 heap space's committed size (new_space, old_space, large_object_space, ...). */
  spaces: Record<string, number>;
}

const MB = 1024 * 1024;
const SNAPSHOT_SIGNAL = "SIGUSR2";

/** The node flags that load the probe (writing to `file`) and, with `snapshotDir`, arm the signal. */
export function memoryFlags(probe: string, snapshotDir: string | null): string[] {
  return [
    "--import",
    probe,
    ...(snapshotDir ? [`--heapsnapshot-signal=${SNAPSHOT_SIGNAL}`, `--diagnostic-dir=${snapshotDir}`] : []),
  ];
}

/** The probe's last reading, or null (not written yet, or no probe). */
export function readMemory(file: string): MemoryReading | null {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as MemoryReading;
  } catch {
    return null;
  }
}

/** One line of what RSS holds: the JS heap (used of committed), its large objects, external, buffers. */
export function describeMemory(m: MemoryReading | null): string {
  if (!m) return "";
  const f = (n: number) => (n / MB).toFixed(0);
  const large = m.spaces.large_object_space ?? 0;
  // Anonymous memory that neither V8's heap nor Node's external allocations account for: the
  // allocator's retained pages, native libraries' own (SQLite), threads' stacks.
  const rest = m.rssAnon - m.heapTotal - m.external;
  return `heap ${f(m.heapUsed)}/${f(m.heapTotal)} (large objects ${f(large)}, new ${f(m.spaces.new_space ?? 0)}) external ${f(m.external)} (array buffers ${f(m.arrayBuffers)}) anon ${f(m.rssAnon)} file ${f(m.rssFile)} rest ${f(rest)}`;
}

/**
 * Takes a heap snapshot of the server `pid` (started with `memoryFlags`), named `<label>.heapsnapshot`
 * in `dir`: resolves once the file is written (the server is blocked while it writes, and answers
 * `healthUrl` again after).
 */
export async function takeHeapSnapshot(pid: number, dir: string, label: string, healthUrl: string) {
  const before = new Set(fs.readdirSync(dir));
  process.kill(pid, SNAPSHOT_SIGNAL);
  const t0 = performance.now();
  let written: string | undefined;
  while (!written && performance.now() - t0 < 120_000) {
    await new Promise((r) => setTimeout(r, 250));
    written = fs.readdirSync(dir).find((f) => f.endsWith(".heapsnapshot") && !before.has(f));
  }
  if (!written) throw new Error(`no heap snapshot in ${dir} within 120 s`);
  // Answered only once the snapshot is written (it is written on the server's main thread).
  await fetch(healthUrl, { signal: AbortSignal.timeout(120_000) });
  const target = path.join(dir, `${label}.heapsnapshot`);
  fs.renameSync(path.join(dir, written), target);
  return { file: target, seconds: (performance.now() - t0) / 1000 };
}

/** RSS of one process (VmRSS), bytes; 0 once it is gone. */
function processRss(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Idle RSS of a server that has started: once it is quiet (Next's route preload done), then
 * `waitS` seconds later; the process itself and its whole tree (tsx's esbuild service included).
 */
export async function idleRss(
  label: string,
  pid: number,
  waitS: number,
  tree: (pid: number) => number,
  settle: (pid: number) => Promise<number>,
  memoryFile: string | null,
) {
  const settled = await settle(pid);
  const quiet = { process: processRss(pid), tree: tree(pid) };
  await new Promise((r) => setTimeout(r, waitS * 1000));
  const later = { process: processRss(pid), tree: tree(pid) };
  const f = (n: number) => (n / MB).toFixed(0);
  console.log(
    `  ${label}: quiet after ${settled.toFixed(0)} s: ${f(quiet.process)} MB (tree ${f(quiet.tree)} MB); ` +
      `${waitS} s later: ${f(later.process)} MB (tree ${f(later.tree)} MB)` +
      (memoryFile ? `\n    ${describeMemory(readMemory(memoryFile))}` : ""),
  );
  return { label, quietMb: quiet.process / MB, laterMb: later.process / MB, treeMb: later.tree / MB };
}
