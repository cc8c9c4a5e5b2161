// `start --open` (lib/cli/open-url.ts): the platform's opener is run with the URL, for real, from a
// PATH the test controls: an opener that works, one that fails (no browser), and none at all.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openerFor, openInBrowser } from "@/lib/cli/open-url";
import { tempDir } from "../environments/helpers";

const tmp = tempDir("ors-open-url-");
afterAll(() => tmp.remove());

/** A fake `xdg-open` in its own folder: records its arguments, exits with `code`. */
function fakeOpener(name: string, code: number): { PATH: string; log: string } {
  const dir = path.join(tmp.dir, name);
  const log = path.join(dir, "args.txt");
  const file = path.join(dir, "xdg-open");
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, `#!/bin/sh\nprintf '%s\\n' "$@" > "${log}"\nexit ${code}\n`);
  chmodSync(file, 0o755);
  return { PATH: dir, log };
}

const URL_TO_OPEN = "http://127.0.0.1:3000/?token=abc_DEF-123";

describe("openInBrowser", () => {
  it("runs the platform's opener with the URL", async () => {
    const opener = fakeOpener("works", 0);
    expect(await openInBrowser(URL_TO_OPEN, { platform: "linux", env: { PATH: opener.PATH } })).toEqual({
      ok: true,
      command: "xdg-open",
    });
    expect(readFileSync(opener.log, "utf8")).toBe(`${URL_TO_OPEN}\n`);
  });

  it("says so when the opener fails or is not there, without throwing", async () => {
    const failing = fakeOpener("fails", 3);
    expect(await openInBrowser(URL_TO_OPEN, { platform: "linux", env: { PATH: failing.PATH } })).toEqual({
      ok: false,
      reason: "xdg-open exited with 3 (no browser to open here?)",
    });
    expect(
      await openInBrowser(URL_TO_OPEN, { platform: "linux", env: { PATH: path.join(tmp.dir, "none") } }),
    ).toEqual({ ok: false, reason: "xdg-open is not installed here" });
  });

  it("knows each platform's opener", () => {
    expect(openerFor("linux")).toEqual({ command: "xdg-open", args: [] });
    expect(openerFor("freebsd").command).toBe("xdg-open");
    expect(openerFor("darwin")).toEqual({ command: "open", args: [] });
    expect(openerFor("win32")).toEqual({ command: "cmd", args: ["/d", "/s", "/c", "start", '""'] });
  });
});
