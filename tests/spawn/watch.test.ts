// The --watch of spawned servers on real files: a change of content is reported once, after the
// debounce; a touch, the same bytes saved again, a temporary file written and removed, and ignored
// folders (caches, .git, editor swap files, the data folder) are not.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ignoreMatcher, watchContent } from "@/lib/spawn/watch";

let dir = "";
let closeWatch = () => {};

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "ors-watch-"));
  mkdirSync(path.join(dir, "pkg"));
  mkdirSync(path.join(dir, "__pycache__"));
  mkdirSync(path.join(dir, "data"));
  writeFileSync(path.join(dir, "my_env.py"), "print('v1')\n");
  writeFileSync(path.join(dir, "pkg", "tools.py"), "X = 1\n");
});
afterEach(() => {
  closeWatch();
  rmSync(dir, { recursive: true, force: true });
});

/** Watches `dir`; returns the batches of changes reported. */
function watchDir(extra: { ignore?: string[]; ignorePaths?: string[] } = {}) {
  const batches: string[][] = [];
  const w = watchContent({ dirs: [dir], debounceMs: 100, onChange: (f) => batches.push(f), ...extra });
  closeWatch = () => w.close();
  return batches;
}

const settle = (ms = 600) => new Promise((r) => setTimeout(r, ms));

describe("watchContent", () => {
  it("reports edits, new files and removals once per burst, in subfolders too", async () => {
    const batches = watchDir();
    writeFileSync(path.join(dir, "my_env.py"), "print('v2')\n");
    writeFileSync(path.join(dir, "my_env.py"), "print('v3')\n");
    writeFileSync(path.join(dir, "pkg", "tools.py"), "X = 2\n");
    await settle();
    expect(batches).toEqual([[path.join(dir, "my_env.py"), path.join(dir, "pkg", "tools.py")]]);

    writeFileSync(path.join(dir, "new.py"), "");
    rmSync(path.join(dir, "pkg", "tools.py"));
    await settle();
    expect(batches[1]).toEqual([path.join(dir, "new.py"), path.join(dir, "pkg", "tools.py")]);

    // A folder made after the start is watched too.
    mkdirSync(path.join(dir, "later"));
    writeFileSync(path.join(dir, "later", "a.py"), "a");
    await settle();
    expect(batches[2]).toEqual([path.join(dir, "later", "a.py")]);
    writeFileSync(path.join(dir, "later", "a.py"), "b");
    await settle();
    expect(batches[3]).toEqual([path.join(dir, "later", "a.py")]);
    expect(batches).toHaveLength(4);
  });

  it("ignores events that change no content", async () => {
    const batches = watchDir({ ignorePaths: [path.join(dir, "data")] });
    const file = path.join(dir, "my_env.py");
    utimesSync(file, new Date(), new Date(Date.now() + 5000)); // touch
    writeFileSync(file, "print('v1')\n"); // the same bytes again (an editor's save, a formatter)
    writeFileSync(path.join(dir, "4913"), ""); // vim's probe, and a temporary file
    rmSync(path.join(dir, "4913"));
    writeFileSync(path.join(dir, "tmp.part"), "x");
    rmSync(path.join(dir, "tmp.part"));
    writeFileSync(path.join(dir, "__pycache__", "my_env.cpython-311.pyc"), "bytecode");
    writeFileSync(path.join(dir, ".my_env.py.swp"), "swap");
    writeFileSync(path.join(dir, "server.log"), "log line");
    writeFileSync(path.join(dir, "data", "trajectories.sqlite"), "db");
    await settle();
    expect(batches).toEqual([]);
  });

  it("ignores names and paths it is told to", async () => {
    const batches = watchDir({ ignore: ["pkg/*.py", "*.tmp"] });
    writeFileSync(path.join(dir, "pkg", "tools.py"), "X = 3\n");
    writeFileSync(path.join(dir, "x.tmp"), "x");
    writeFileSync(path.join(dir, "my_env.py"), "print('v9')\n");
    await settle();
    expect(batches).toEqual([[path.join(dir, "my_env.py")]]);
    const m = ignoreMatcher(["*.pyc", "build/", "a/b"]);
    expect([m("x.pyc", "p/x.pyc"), m("build", "build"), m("b", "a/b"), m("b", "c/b")]).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });
});
