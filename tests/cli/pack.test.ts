// The package as npm ships it (`npm run test:pack`; minutes: one pack, one install, one start):
// `npm pack` (its prepack builds the app and the SDK) → the tarball holds what the CLI needs and no
// data, tests, repository or caches → `npm install <tarball>` in an empty folder → the README's
// environment module type-checks against the installed `ors-playground/sdk` → `npx ors-playground`
// starts the playground with that module: a page and /api/ors/health answer, the module's
// environment plays an episode, and `check --quality` plays its quality checks into the app's store
// → stopped by its PID. The temporary folder is removed.
import { execFile } from "node:child_process";
import { readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { orsAt, REPO, readmeExample, start, tempDir } from "../environments/helpers";

const PORT = Number(process.env.ORS_TEST_PACK_PORT ?? 8761);
const exec = promisify(execFile);
const tmp = tempDir("ors-pack-");
const app = path.join(tmp.dir, "app");

afterAll(() => tmp.remove());

/** Runs npm with a time limit; its output on failure. */
async function npm(args: string[], cwd: string, timeoutMs: number): Promise<string> {
  const env: Record<string, string | undefined> = { ...process.env };
  delete env.NODE_ENV;
  try {
    const { stdout } = await exec("npm", args, {
      cwd,
      timeout: timeoutMs,
      maxBuffer: 64 << 20,
      env: env as NodeJS.ProcessEnv,
    });
    return stdout;
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`npm ${args.join(" ")} failed: ${err.message}\n${err.stdout ?? ""}\n${err.stderr ?? ""}`);
  }
}

describe("npm pack → install → npx ors-playground", () => {
  let tarball = "";

  it(
    "packs the CLI, the server code, the production build and the SDK, and nothing else",
    async () => {
      await npm(["pack", "--pack-destination", tmp.dir], REPO, 12 * 60_000);
      const name = readdirSync(tmp.dir).find((f) => f.endsWith(".tgz"));
      expect(name).toMatch(/^ors-playground-\d+\.\d+\.\d+\.tgz$/);
      tarball = path.join(tmp.dir, name!);
      const { stdout } = await exec("tar", ["-tzf", tarball], { maxBuffer: 64 << 20 });
      const files = stdout
        .split("\n")
        .filter(Boolean)
        .map((f) => f.replace(/^package\//, ""));
      for (const needed of [
        "package.json",
        "README.md",
        "bin/ors-playground.mjs",
        "lib/cli/main.ts",
        "lib/app-server/app-server.ts",
        "lib/environments/reload-hook.mjs",
        "envs/index.ts",
        "dist/sdk/index.js",
        "dist/sdk/sdk/package-entry.d.ts",
        ".next/BUILD_ID",
        ".next/ors-externals.json",
        "next.config.mjs",
        "tsconfig.json",
      ])
        expect(files, needed).toContain(needed);
      const unwanted = files.filter((f) =>
        /^(\.data|tests|e2e|\.git|node_modules|test-results|playwright-report|scripts|app|components)\/|^\.next\/(cache|dev|types|diagnostics)\/|^\.next\/.*\.map$|\.tsbuildinfo$/.test(
          f,
        ),
      );
      expect(unwanted).toEqual([]);
      const size = statSync(tarball).size;
      console.log(`tarball: ${name}, ${files.length} files, ${(size / 1e6).toFixed(1)} MB`);
      // The production build dominates; source maps and caches would multiply it.
      expect(size).toBeLessThan(15e6);
    },
    13 * 60_000,
  );

  it(
    "installs into an empty folder, type-checks an author's module, starts and answers",
    async () => {
      expect(tarball).not.toBe("");
      const { mkdirSync } = await import("node:fs");
      mkdirSync(app);
      // A package.json of its own, or npm would install into a parent folder's project.
      writeFileSync(
        path.join(app, "package.json"),
        '{ "name": "pack-test", "private": true, "type": "module" }\n',
      );
      await npm(["install", tarball, "--prefer-offline", "--no-audit", "--no-fund"], app, 12 * 60_000);

      // The README's module, typed by the installed package's declarations (as an author's tsc sees it).
      writeFileSync(path.join(app, "envs.ts"), readmeExample());
      writeFileSync(
        path.join(app, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            module: "nodenext",
            moduleResolution: "nodenext",
            target: "es2022",
            strict: true,
            noEmit: true,
            types: [],
          },
          files: ["envs.ts"],
        }),
      );
      await exec(
        process.execPath,
        [path.join(REPO, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"],
        {
          cwd: app,
        },
      ).catch((e: { stdout?: string; message: string }) => {
        throw new Error(
          `the README module does not type-check against the installed SDK: ${e.stdout ?? e.message}`,
        );
      });

      const py = "http://127.0.0.1:8769";
      const cli = start(
        [
          "ors-playground",
          "--port",
          String(PORT),
          "--env",
          "./envs.ts",
          "--server",
          `py=${py}`,
          "--data-dir",
          "./data",
        ],
        {
          cwd: app,
          command: "npx",
        },
      );
      try {
        const base = (await cli.waitFor(/Open {10}(http:\/\/127\.0\.0\.1:\d+)/, 120_000))[1]!;
        expect(base).toBe(`http://127.0.0.1:${PORT}`);
        expect(cli.out()).toMatch(
          /Hosted here {3}capitals {2}\(from \.\/envs\.ts, reloaded when you save it\)/,
        );
        expect(cli.out()).toContain(`Data          ${path.join(app, "data")}`);
        expect(cli.out()).toContain(`Servers       py       ${py}`);
        const servers = (await (await fetch(`${base}/api/servers`)).json()) as {
          name: string;
          url: string;
        }[];
        expect(servers.find((s) => s.name === "py")).toMatchObject({ url: py });
        const page = await fetch(`${base}/`);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain("<title>ORS Playground");
        expect(await (await fetch(`${base}/api/ors/health`)).json()).toEqual({ status: "ok" });
        const ors = orsAt(`${base}/api/ors`);
        expect(await ors.get("/list_environments")).toEqual(expect.arrayContaining(["capitals", "math"]));
        const sid = await ors.episode("capitals", "test", 0);
        expect(await ors.call("capitals", sid, "answer", { answer: "Nairobi" })).toMatchObject({
          ok: true,
          output: { reward: 1, finished: true },
        });
        // `check --quality` from the installed package: its episodes are recorded where this app reads them.
        const { stdout } = await exec(
          "npx",
          [
            "ors-playground",
            "check",
            base,
            "--quality",
            "--env",
            "capitals",
            "--data-dir",
            "./data",
            "--json",
          ],
          { cwd: app, maxBuffer: 16 << 20 },
        );
        const quality = JSON.parse(stdout).quality;
        expect(quality.summary).toMatchObject({ findings: 0, passed: true });
        const played = await fetch(`${base}/api/trajectories?run=${quality.sample.plays[0].runId}`);
        expect((await played.json()).total).toBe(2);
      } finally {
        await cli.stop();
      }
      // The command itself stopped cleanly on SIGTERM (npm's own exit status is npm's business).
      expect(cli.out()).toMatch(/stopping\n$/);
      expect(cli.err()).not.toMatch(/Error|unhandled/);
    },
    15 * 60_000,
  );
});
