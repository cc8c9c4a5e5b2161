// Files the app writes are its owner's only (DESIGN.md "Security"): a new data folder 0700, the
// SQLite store with its -wal and -shm files 0600 (also when an older store was world-readable),
// and servers.json 0600. On real files, with the usual umask.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createServerRegistry } from "@/lib/registry";
import { openStore } from "@/lib/store/sqlite/store";

const dirs: string[] = [];
const mode = (f: string) => fs.statSync(f).mode & 0o777;
const oldUmask = process.umask(0o022);

afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
process.on("exit", () => process.umask(oldUmask));

function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "ors-modes-"));
  dirs.push(d);
  return d;
}

describe("owner-only files", () => {
  it("the store: data folder 0700, database, -wal and -shm 0600", () => {
    const dir = path.join(tempDir(), "data");
    const store = openStore({ dir });
    try {
      const file = path.join(dir, "trajectories.sqlite");
      expect(mode(dir)).toBe(0o700);
      for (const f of [file, `${file}-wal`, `${file}-shm`]) expect(mode(f), f).toBe(0o600);
    } finally {
      store.close();
    }
  });

  it("an older world-readable store is narrowed when opened", () => {
    const dir = tempDir();
    openStore({ dir }).close();
    const file = path.join(dir, "trajectories.sqlite");
    fs.chmodSync(file, 0o644);
    const store = openStore({ dir });
    try {
      expect(mode(file)).toBe(0o600);
    } finally {
      store.close();
    }
  });

  it("servers.json 0600 in a new 0700 folder", async () => {
    const dir = path.join(tempDir(), "data");
    const registry = createServerRegistry({
      dataDir: dir,
      env: {},
      localHandler: () => async () => new Response(null, { status: 404 }),
    });
    await registry.add({ name: "py", url: "http://127.0.0.1:8080", apiKey: "k" });
    expect(mode(dir)).toBe(0o700);
    expect(mode(path.join(dir, "servers.json"))).toBe(0o600);
  });
});
