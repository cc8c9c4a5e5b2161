// Watches the folders of `start --watch DIR` for changes of content: fs.watch on every folder below
// them tells which paths may have changed; after a quiet moment (debounce) each is compared with
// what it held before (size and a SHA-1 of the bytes; size and mtime for big files), so a `touch`,
// an editor's save of the same bytes, a `git checkout` that leaves a file as it was, or a temporary
// file written and removed changes nothing. Caches, VCS folders and editor swap files are ignored.
import "server-only";
import { createHash } from "node:crypto";
import { type Dirent, type FSWatcher, readdirSync, readFileSync, type Stats, statSync, watch } from "node:fs";
import path from "node:path";

/** Names never watched: folders of tools and caches, and files editors and interpreters write. */
export const DEFAULT_IGNORE = [
  ".git",
  ".hg",
  ".svn",
  "node_modules",
  "__pycache__",
  ".venv",
  "venv",
  ".mypy_cache",
  ".pytest_cache",
  ".ruff_cache",
  ".tox",
  ".idea",
  ".vscode",
  ".next",
  ".data",
  "*.pyc",
  "*.pyo",
  "*.log",
  "*.swp",
  "*.swx",
  "*.swo",
  "*~",
  ".#*",
  "#*#",
  ".DS_Store",
  "4913",
];

/** Files bigger than this are compared by size and mtime, not read. */
const HASH_LIMIT_BYTES = 4 * 1024 * 1024;
/** Bytes read at the start (the first scan blocks): beyond it, files start with size and mtime. */
const INITIAL_HASH_BYTES = 64 * 1024 * 1024;
/** Folders watched at most (each costs an inotify watch): beyond it, the rest is not watched. */
const MAX_FOLDERS = 4000;
/** Files remembered at most. */
const MAX_FILES = 50_000;

export interface ContentWatcherOptions {
  /** Folders to watch (absolute), each with everything below it. */
  dirs: readonly string[];
  /** Names or globs (`*` within a name) to ignore, matched against each name and each relative path. */
  ignore?: readonly string[];
  /** Absolute paths to ignore with everything below them (e.g. the playground's data folder). */
  ignorePaths?: readonly string[];
  /** Quiet time after the last event before comparing (default 300 ms); at most `maxWaitMs` (1.5 s). */
  debounceMs?: number;
  maxWaitMs?: number;
  /** Called with the files whose content changed (created, edited, removed), as absolute paths. */
  onChange: (files: string[]) => void;
  /** Said once when a limit stops the watch from covering everything. */
  warn?: (message: string) => void;
}

export interface ContentWatcher {
  /** Compares the paths seen changing now, without waiting for the debounce (tests, shutdown). */
  flush(): void;
  close(): void;
}

type Fingerprint = string;

function globToRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, "[^/]*")
    .replace(/\?/g, "[^/]");
  return new RegExp(`^${body}$`);
}

/** A matcher for names and relative paths (`/` separated). */
export function ignoreMatcher(patterns: readonly string[]): (name: string, rel: string) => boolean {
  const res = patterns.map((p) => globToRegExp(p.replace(/\/+$/, "")));
  return (name, rel) => res.some((re) => re.test(name) || re.test(rel));
}

/** What a file holds: its size and a hash of its bytes, or (`meta`) its size and mtime. */
function fingerprint(file: string, st: Stats, meta = false): Fingerprint {
  if (meta || st.size > HASH_LIMIT_BYTES) return `meta:${st.size}:${st.mtimeMs}`;
  try {
    return `${st.size}:${createHash("sha1").update(readFileSync(file)).digest("hex")}`;
  } catch {
    return `unreadable:${st.size}:${st.mtimeMs}`;
  }
}

export function watchContent(options: ContentWatcherOptions): ContentWatcher {
  const debounceMs = options.debounceMs ?? 300;
  const maxWaitMs = options.maxWaitMs ?? 1500;
  const ignored = ignoreMatcher([...DEFAULT_IGNORE, ...(options.ignore ?? [])]);
  const ignoredPaths = (options.ignorePaths ?? []).map((p) => path.resolve(p));
  const roots = options.dirs.map((d) => path.resolve(d));
  const known = new Map<string, Fingerprint>();
  const watchers = new Map<string, FSWatcher>();
  const pending = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | null = null;
  let firstPendingAt = 0;
  let closed = false;
  let warned = false;
  const warn = (message: string) => {
    if (warned) return;
    warned = true;
    options.warn?.(message);
  };

  const isIgnored = (abs: string): boolean => {
    if (ignoredPaths.some((p) => abs === p || abs.startsWith(`${p}${path.sep}`))) return true;
    const root = roots.find((r) => abs === r || abs.startsWith(`${r}${path.sep}`));
    if (!root || abs === root) return false;
    const rel = path.relative(root, abs).split(path.sep);
    // Any ignored folder on the way ignores what is below it.
    for (let i = 0; i < rel.length; i++) if (ignored(rel[i]!, rel.slice(0, i + 1).join("/"))) return true;
    return false;
  };

  /** Watches `dir` and the folders below it; remembers (or, with `report`, marks as changed) its files. */
  const addFolder = (dir: string, report: boolean) => {
    if (closed || watchers.has(dir) || isIgnored(dir)) return;
    if (watchers.size >= MAX_FOLDERS) {
      warn(`watching only the first ${MAX_FOLDERS} folders under ${roots.join(", ")}`);
      return;
    }
    try {
      const w = watch(dir, { persistent: false }, (_event, name) => {
        if (name) changed(path.join(dir, name.toString()));
        else rescan(dir);
      });
      w.on("error", () => {
        w.close();
        watchers.delete(dir);
        changed(dir);
      });
      watchers.set(dir, w);
    } catch {
      return; // gone or unreadable
    }
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const abs = path.join(dir, entry.name);
      if (isIgnored(abs)) continue;
      if (entry.isDirectory()) addFolder(abs, report);
      else if (entry.isFile()) {
        if (report) changed(abs);
        else remember(abs);
      }
    }
  };

  let hashBudget = INITIAL_HASH_BYTES;
  const remember = (file: string) => {
    if (known.size >= MAX_FILES) {
      warn(`comparing only the first ${MAX_FILES} files under ${roots.join(", ")}`);
      return;
    }
    try {
      const st = statSync(file);
      const meta = st.size > hashBudget;
      if (!meta) hashBudget -= st.size;
      known.set(file, fingerprint(file, st, meta));
    } catch {
      // gone meanwhile
    }
  };

  const rescan = (dir: string) => {
    for (const file of known.keys()) if (path.dirname(file) === dir) changed(file);
    try {
      for (const name of readdirSync(dir)) changed(path.join(dir, name));
    } catch {
      // gone
    }
  };

  const changed = (abs: string) => {
    if (closed || isIgnored(abs)) return;
    if (pending.size === 0) firstPendingAt = Date.now();
    pending.add(abs);
    if (timer) clearTimeout(timer);
    const wait = Math.max(0, Math.min(debounceMs, firstPendingAt + maxWaitMs - Date.now()));
    timer = setTimeout(flush, wait);
    timer.unref?.();
  };

  /** Compares every pending path with what it held; reports the files whose content changed. */
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    const paths = [...pending];
    pending.clear();
    const out = new Set<string>();
    for (const abs of paths) {
      let st: Stats | null = null;
      try {
        st = statSync(abs);
      } catch {
        st = null;
      }
      if (st?.isDirectory()) {
        if (!watchers.has(abs)) {
          // A new folder: watched from now on; the files in it are new.
          const before = new Set(known.keys());
          addFolder(abs, false);
          for (const file of known.keys()) if (!before.has(file)) out.add(file);
        }
        continue;
      }
      // A folder that went away: its watcher and every file under it.
      const w = watchers.get(abs);
      if (w) {
        w.close();
        for (const dir of [...watchers.keys()])
          if (dir === abs || dir.startsWith(`${abs}${path.sep}`)) {
            watchers.get(dir)!.close();
            watchers.delete(dir);
          }
        for (const file of [...known.keys()])
          if (file.startsWith(`${abs}${path.sep}`)) {
            known.delete(file);
            out.add(file);
          }
        continue;
      }
      const before = known.get(abs);
      if (!st?.isFile()) {
        if (before !== undefined) {
          known.delete(abs);
          out.add(abs);
        }
        continue;
      }
      if (before === undefined && known.size >= MAX_FILES) continue;
      // A file first seen by size and mtime is compared so once, then by its bytes.
      if (before?.startsWith("meta:") && fingerprint(abs, st, true) === before) continue;
      const now = fingerprint(abs, st);
      if (now !== before) {
        known.set(abs, now);
        out.add(abs);
      }
    }
    if (out.size > 0 && !closed) options.onChange([...out].sort());
  };

  for (const root of roots) addFolder(root, false);

  return {
    flush,
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const w of watchers.values()) w.close();
      watchers.clear();
      pending.clear();
    },
  };
}
