// Watching environment files for saves: each folder on its own (Node's recursive fs.watch on Linux
// loses a file that an editor saves by replacing it: write a copy, rename it over), by folder rather
// than by file for the same reason. Events are only hints: the reloader compares contents.
import "server-only";
import { type FSWatcher, readdirSync, watch } from "node:fs";
import path from "node:path";

/** A folder and every folder below it. */
export function foldersUnder(dir: string): string[] {
  const out = [dir];
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true }))
      if (entry.isDirectory()) out.push(...foldersUnder(path.join(dir, entry.name)));
  } catch {
    // Unreadable: watched as far as it could be listed.
  }
  return out;
}

/** The files under `dir` (every level) whose name matches `pattern`, sorted. */
export function filesUnder(dir: string, pattern: RegExp): string[] {
  const out: string[] = [];
  for (const folder of foldersUnder(dir)) {
    try {
      for (const entry of readdirSync(folder, { withFileTypes: true }))
        if (entry.isFile() && pattern.test(entry.name)) out.push(path.join(folder, entry.name));
    } catch {
      // A folder that disappeared meanwhile.
    }
  }
  return out.sort();
}

/** Watches the folders of `files` and reports a change of any of those files. */
export function watchFiles(files: Iterable<string>, onChange: (file: string) => void): FSWatcher[] {
  const byDir = new Map<string, Set<string>>();
  for (const f of files) {
    const dir = path.dirname(f);
    if (!byDir.has(dir)) byDir.set(dir, new Set());
    byDir.get(dir)!.add(path.basename(f));
  }
  const watchers: FSWatcher[] = [];
  for (const [dir, names] of byDir) {
    const w = watchFolder(dir, (name) => names.has(name), onChange);
    if (w) watchers.push(w);
  }
  return watchers;
}

/** Watches every folder under `dir` and reports a change of any file whose name matches `pattern`. */
export function watchTree(dir: string, pattern: RegExp, onChange: (file: string) => void): FSWatcher[] {
  const watchers: FSWatcher[] = [];
  for (const folder of foldersUnder(dir)) {
    const w = watchFolder(folder, (name) => pattern.test(name), onChange);
    if (w) watchers.push(w);
  }
  return watchers;
}

/** Watches one folder for changes of the files whose names `accept` takes; null for a folder that is gone. */
function watchFolder(
  folder: string,
  accept: (name: string) => boolean,
  onChange: (file: string) => void,
): FSWatcher | null {
  try {
    const w = watch(folder, { persistent: false }, (_event, name) => {
      if (name && accept(name.toString())) onChange(path.join(folder, name.toString()));
    });
    w.on("error", () => {});
    return w;
  } catch {
    return null;
  }
}
