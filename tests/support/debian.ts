// Finding a program from one of Debian's packages, or installing the package when it is missing and
// we are root (saying so), as scripts/ensure-chromium.mjs does for Chromium. No system service is
// started by the install: invoke-rc.d asks policy-rc.d, which we answer "no" (101) while it runs.
import { execFileSync, execSync } from "node:child_process";
import { accessSync, constants, existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

export const isRoot = (): boolean => typeof process.getuid === "function" && process.getuid() === 0;

/** The first executable named `name` on PATH or in `dirs`, or null. */
export function findProgram(name: string, dirs: string[] = []): string | null {
  const pathDirs = (process.env.PATH ?? "").split(path.delimiter).filter(Boolean);
  for (const dir of [...pathDirs, ...dirs]) {
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}

/** `/usr/lib/postgresql/<version>/bin` folders, newest version first. */
export function postgresBinDirs(root = "/usr/lib/postgresql"): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((v) => /^\d+(\.\d+)?$/.test(v))
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => path.join(root, v, "bin"))
    .filter((dir) => existsSync(dir));
}

export type Found = { ok: true; path: string } | { ok: false; reason: string };

/**
 * What a test file does when a real component it needs (PostgreSQL, nginx) could not be found or
 * installed: it fails, saying why. A skipped test checks nothing, so a suite missing a part must
 * never read as green.
 */
export function missingComponent(what: string, label: string, reason: string): never {
  throw new Error(`${label} needs ${what}, which could not be found or installed here: ${reason}`);
}

/**
 * Installs Debian's `pkg` with apt-get (root only), printing that it does; then `locate()` must find
 * the program. Not root: `{ ok: false }` with the command to run by hand.
 */
export function installDebianPackage(pkg: string, locate: () => string | null, log = console.log): Found {
  if (!isRoot())
    return {
      ok: false,
      reason: `Debian's ${pkg} package is not installed and this is not root: install it (sudo apt-get install -y ${pkg})`,
    };
  log(`[test support] ${pkg} is missing; installing Debian's ${pkg} package (apt-get)...`);
  const policy = "/usr/sbin/policy-rc.d";
  const ownPolicy = !existsSync(policy);
  try {
    if (ownPolicy)
      writeFileSync(policy, "#!/bin/sh\n# no services started while tests install packages\nexit 101\n", {
        mode: 0o755,
      });
    // Another install may hold dpkg's lock for a while (a shared machine): wait for it.
    const wait = "-o DPkg::Lock::Timeout=300";
    execSync(
      `apt-get ${wait} update -qq && DEBIAN_FRONTEND=noninteractive apt-get ${wait} install -y -qq ${pkg}`,
      {
        stdio: ["ignore", "inherit", "inherit"],
        timeout: 10 * 60_000,
      },
    );
  } catch (err) {
    return { ok: false, reason: `apt-get install ${pkg} failed: ${(err as Error).message.split("\n")[0]}` };
  } finally {
    if (ownPolicy) rmSync(policy, { force: true });
  }
  const found = locate();
  if (!found) return { ok: false, reason: `${pkg} was installed, but its program is still not found` };
  log(`[test support] installed ${pkg}: ${found}`);
  return { ok: true, path: found };
}

/** The uid and gid of a system user (e.g. `postgres`), or null. */
export function userIds(name: string): { uid: number; gid: number } | null {
  try {
    const uid = Number(execFileSync("id", ["-u", name], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", name], { encoding: "utf8" }).trim());
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : null;
  } catch {
    return null;
  }
}
