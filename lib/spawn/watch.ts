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
  const w = new ContentWatch(options);
  w.start();
  return w;
}

/** The watch itself: what it knows of each file, its fs watchers, and the paths seen changing. */
class ContentWatch implements ContentWatcher {
  private readonly debounceMs: number;
  private readonly maxWaitMs: number;
  private readonly ignored: (name: string, rel: string) => boolean;
  private readonly ignoredPaths: string[];
  private readonly roots: string[];
  private readonly known = new Map<string, Fingerprint>();
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly pending = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private firstPendingAt = 0;
  private closed = false;
  private warned = false;
  private hashBudget = INITIAL_HASH_BYTES;

  constructor(private readonly options: ContentWatcherOptions) {
    this.debounceMs = options.debounceMs ?? 300;
    this.maxWaitMs = options.maxWaitMs ?? 1500;
    this.ignored = ignoreMatcher([...DEFAULT_IGNORE, ...(options.ignore ?? [])]);
    this.ignoredPaths = (options.ignorePaths ?? []).map((p) => path.resolve(p));
    this.roots = options.dirs.map((d) => path.resolve(d));
  }

  start(): void {
    for (const root of this.roots) this.addFolder(root, false);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    this.pending.clear();
  }

  /** Compares every pending path with what it held; reports the files whose content changed. */
  readonly flush = (): void => {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const paths = [...this.pending];
    this.pending.clear();
    const out = new Set<string>();
    for (const abs of paths) this.compare(abs, out);
    if (out.size > 0 && !this.closed) this.options.onChange([...out].sort());
  };

  private warn(message: string): void {
    if (this.warned) return;
    this.warned = true;
    this.options.warn?.(message);
  }

  private isIgnored(abs: string): boolean {
    if (this.ignoredPaths.some((p) => abs === p || abs.startsWith(`${p}${path.sep}`))) return true;
    const root = this.roots.find((r) => abs === r || abs.startsWith(`${r}${path.sep}`));
    if (!root || abs === root) return false;
    const rel = path.relative(root, abs).split(path.sep);
    // Any ignored folder on the way ignores what is below it.
    for (let i = 0; i < rel.length; i++)
      if (this.ignored(rel[i]!, rel.slice(0, i + 1).join("/"))) return true;
    return false;
  }

  /** Watches `dir` and the folders below it; remembers (or, with `report`, marks as changed) its files. */
  private addFolder(dir: string, report: boolean): void {
    if (this.closed || this.watchers.has(dir) || this.isIgnored(dir)) return;
    if (this.watchers.size >= MAX_FOLDERS) {
      this.warn(`watching only the first ${MAX_FOLDERS} folders under ${this.roots.join(", ")}`);
      return;
    }
    try {
      const w = watch(dir, { persistent: false }, (_event, name) => {
        if (name) this.changed(path.join(dir, name.toString()));
        else this.rescan(dir);
      });
      w.on("error", () => {
        w.close();
        this.watchers.delete(dir);
        this.changed(dir);
      });
      this.watchers.set(dir, w);
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
      if (this.isIgnored(abs)) continue;
      if (entry.isDirectory()) this.addFolder(abs, report);
      else if (entry.isFile()) {
        if (report) this.changed(abs);
        else this.remember(abs);
      }
    }
  }

  private remember(file: string): void {
    if (this.known.size >= MAX_FILES) {
      this.warn(`comparing only the first ${MAX_FILES} files under ${this.roots.join(", ")}`);
      return;
    }
    try {
      const st = statSync(file);
      const meta = st.size > this.hashBudget;
      if (!meta) this.hashBudget -= st.size;
      this.known.set(file, fingerprint(file, st, meta));
    } catch {
      // gone meanwhile
    }
  }

  private rescan(dir: string): void {
    for (const file of this.known.keys()) if (path.dirname(file) === dir) this.changed(file);
    try {
      for (const name of readdirSync(dir)) this.changed(path.join(dir, name));
    } catch {
      // gone
    }
  }

  private changed(abs: string): void {
    if (this.closed || this.isIgnored(abs)) return;
    if (this.pending.size === 0) this.firstPendingAt = Date.now();
    this.pending.add(abs);
    if (this.timer) clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(this.debounceMs, this.firstPendingAt + this.maxWaitMs - Date.now()));
    this.timer = setTimeout(this.flush, wait);
    this.timer.unref?.();
  }

  /** What became of `abs` since it was last seen: adds each file whose content changed to `out`. */
  private compare(abs: string, out: Set<string>): void {
    let st: Stats | null = null;
    try {
      st = statSync(abs);
    } catch {
      st = null;
    }
    if (st?.isDirectory()) {
      this.folderAppeared(abs, out);
      return;
    }
    if (this.watchers.has(abs)) {
      this.folderGone(abs, out);
      return;
    }
    const before = this.known.get(abs);
    if (!st?.isFile()) {
      if (before !== undefined) {
        this.known.delete(abs);
        out.add(abs);
      }
      return;
    }
    if (before === undefined && this.known.size >= MAX_FILES) return;
    // A file first seen by size and mtime is compared so once, then by its bytes.
    if (before?.startsWith("meta:") && fingerprint(abs, st, true) === before) return;
    const now = fingerprint(abs, st);
    if (now !== before) {
      this.known.set(abs, now);
      out.add(abs);
    }
  }

  /** A new folder: watched from now on; the files in it are new. */
  private folderAppeared(abs: string, out: Set<string>): void {
    if (this.watchers.has(abs)) return;
    const before = new Set(this.known.keys());
    this.addFolder(abs, false);
    for (const file of this.known.keys()) if (!before.has(file)) out.add(file);
  }

  /** A folder that went away: its watcher and every file under it. */
  private folderGone(abs: string, out: Set<string>): void {
    this.watchers.get(abs)!.close();
    for (const dir of [...this.watchers.keys()])
      if (dir === abs || dir.startsWith(`${abs}${path.sep}`)) {
        this.watchers.get(dir)!.close();
        this.watchers.delete(dir);
      }
    for (const file of [...this.known.keys()])
      if (file.startsWith(`${abs}${path.sep}`)) {
        this.known.delete(file);
        out.add(file);
      }
  }
}
