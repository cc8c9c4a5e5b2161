// The package as npm ships it (`npm run test:pack`; minutes: one pack, one install, one start):
// `npm pack` (its prepack builds the SDK, and the app unless `npm test` just built it: scripts/build-if-stale.ts) → the tarball holds what the CLI needs and no
// data, tests, repository or caches → in an empty folder beside it, docs/authoring.md's setup lines
// run exactly as printed (npm init, "type": "module", the install from the tarball), then its
// tsconfig.json and envs.ts are written as printed and its run lines run: `npx tsc` type-checks the
// module against the installed `ors-playground/sdk` (and fails on a type error), `npx ors-playground
// --env ./envs.ts` starts the playground: a page and /api/ors/health answer, the module's environment
// plays an episode; the commands the UI and the doc offer work there too (`npx ors-playground check`
// on the playground, `npx ors-playground test` on a golden episode recorded through it); the folder's
// config file adds a server and one the playground runs itself (spawn), ready and relayed; `check
// --quality` plays its quality checks into the app's store → stopped by its PID, and the spawned server with it. Nothing installs the package by name from the
// registry: it is private.
import { execFile } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import {
  authoringExample,
  exampleCommands,
  orsAt,
  REPO,
  start,
  TEST_TOKEN,
  tempDir,
  WITH_TOKEN,
} from "../environments/helpers";

const exec = promisify(execFile);
const tmp = tempDir("ors-pack-");
/** Where the doc's layout has the clone (and so the tarball), and the author's project beside it. */
const clone = path.join(tmp.dir, "ors-playground");
const project = path.join(tmp.dir, "my-envs");

/** npm's settings for the test, as variables (the doc's lines run unchanged): the local cache first. */
const NPM_ENV = {
  npm_config_prefer_offline: "true",
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false",
};

function testEnv(): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = { ...process.env, ...NPM_ENV };
  delete env.NODE_ENV;
  return env as NodeJS.ProcessEnv;
}

/** Runs a line in a shell (as a reader pastes it) with a time limit; its output, or an error with it. */
async function sh(line: string, cwd: string, timeoutMs: number, env: Record<string, string> = {}) {
  try {
    return await exec("sh", ["-c", line], {
      cwd,
      timeout: timeoutMs,
      maxBuffer: 64 << 20,
      env: { ...testEnv(), ...env },
    });
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`\`${line}\` failed: ${err.message}\n${err.stdout ?? ""}\n${err.stderr ?? ""}`);
  }
}

afterAll(() => tmp.remove());

describe("npm pack → install → npx ors-playground", () => {
  let tarball = "";

  it(
    "packs the CLI, the server code, the production build and the SDK, and nothing else",
    async () => {
      mkdirSync(clone);
      await sh(`npm pack --pack-destination ${JSON.stringify(clone)}`, REPO, 12 * 60_000);
      const name = readdirSync(clone).find((f) => f.endsWith(".tgz"));
      expect(name).toMatch(/^ors-playground-\d+\.\d+\.\d+\.tgz$/);
      tarball = path.join(clone, name!);
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
        "dist/sdk/ors/sdk/package-entry.d.ts",
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
    "installs as docs/authoring.md says, type-checks the module, starts, and check and test work there",
    async () => {
      expect(tarball).not.toBe("");
      mkdirSync(project);
      // The setup, line by line, exactly as printed.
      const setup = exampleCommands("setup.sh");
      expect(setup.join("\n")).toMatch(/npm pkg set type=module/);
      expect(setup.join("\n")).toMatch(/npm install --save-dev \.\.\/ors-playground\/ors-playground-\*\.tgz/);
      for (const line of setup) await sh(line, project, 12 * 60_000);
      const pkg = JSON.parse(readFileSync(path.join(project, "package.json"), "utf8")) as {
        type?: string;
        devDependencies?: Record<string, string>;
      };
      expect(pkg.type).toBe("module");
      expect(pkg.devDependencies?.["ors-playground"]).toMatch(/^file:.*ors-playground-.*\.tgz$/);

      writeFileSync(path.join(project, "tsconfig.json"), authoringExample("tsconfig.json"));
      writeFileSync(path.join(project, "envs.ts"), authoringExample("envs.ts"));
      const [tsc, startLine] = exampleCommands("run.sh");
      expect(tsc).toMatch(/^npx tsc\b/);
      expect(startLine).toMatch(/^npx ors-playground --env \.\/envs\.ts\b/);
      // The module type-checks against the installed SDK's declarations; a wrong type does not.
      await sh(tsc!, project, 5 * 60_000);
      writeFileSync(
        path.join(project, "wrong.ts"),
        'import { defineTool, text, z } from "ors-playground/sdk";\n' +
          'export const t = defineTool({ description: "x", input: z.object({ n: z.number() }),\n' +
          '  run: ({ n }) => ({ blocks: [text(n)], reward: "1" }) });\n',
      );
      await expect(sh(tsc!, project, 5 * 60_000)).rejects.toThrow(/wrong\.ts.*error TS/s);
      await sh("rm wrong.ts", project, 10_000);
      // defineMcpEnvironment is in the packed SDK, with what it needs installed (the MCP SDK).
      await sh(
        `node --input-type=module -e "import { defineMcpEnvironment } from 'ors-playground/sdk'; if (typeof defineMcpEnvironment !== 'function') process.exit(1)"`,
        project,
        60_000,
      );

      // A server of the author's own, run by the playground, and a config file that says so.
      writeFileSync(
        path.join(project, "server.mjs"),
        readFileSync(path.join(REPO, "tests/spawn/fixtures/tiny-ors.mjs"), "utf8"),
      );
      writeFileSync(
        path.join(project, "ors-playground.config.json"),
        JSON.stringify({
          servers: { staging: "http://127.0.0.1:8768" },
          spawn: { server: "node server.mjs --port {port}" },
        }),
      );
      let spawnedPid = 0;
      // The start line as printed; where to listen and keep data come from variables.
      const data = path.join(tmp.dir, "xdg");
      const cli = start(["-c", startLine!], {
        cwd: project,
        command: "sh",
        env: { ...NPM_ENV, PORT: "0", XDG_DATA_HOME: data, ORS_SERVERS: "" },
      });

      try {
        const base = (await cli.waitFor(/Open {10}(http:\/\/127\.0\.0\.1:\d+)/, 120_000))[1]!;
        expect(cli.out()).toMatch(
          /Hosted here {3}capitals {2}\(from \.\/envs\.ts, reloaded when you save it\)/,
        );
        expect(cli.out()).toContain(`Data          ${path.join(data, "ors-playground")}`);
        expect(cli.out()).toContain(`Config        ./ors-playground.config.json`);
        expect(cli.out()).toMatch(/Servers {7}server {3}http:\/\/127\.0\.0\.1:\d+\n/);
        // One spawned server: the URL to open is its page.
        expect(cli.out()).toContain(`Open          ${base}/s/server?token=${TEST_TOKEN}`);
        await cli.waitFor(/\[server\] ready at http:\/\/127\.0\.0\.1:\d+/, 60_000);
        const log = (await (
          await fetch(`${base}/api/servers/server/log`, { headers: WITH_TOKEN })
        ).json()) as {
          status: { state: string; pid: number };
        };
        expect(log.status.state).toBe("ready");
        spawnedPid = log.status.pid;
        expect(
          await (await fetch(`${base}/api/servers/server/list_environments`, { headers: WITH_TOKEN })).json(),
        ).toEqual(["tiny"]);
        const servers = (await (await fetch(`${base}/api/servers`, { headers: WITH_TOKEN })).json()) as {
          name: string;
          url: string;
        }[];
        expect(servers.find((s) => s.name === "staging")).toMatchObject({ url: "http://127.0.0.1:8768" });
        expect((await fetch(`${base}/`)).status).toBe(401);
        const page = await fetch(`${base}/`, { headers: WITH_TOKEN });
        expect(page.status).toBe(200);
        expect(await page.text()).toContain("<title>ORS Playground");
        expect(await (await fetch(`${base}/api/ors/health`)).json()).toEqual({ status: "ok" });
        expect(
          await (await fetch(`${base}/api/environments/status`, { headers: WITH_TOKEN })).json(),
        ).toMatchObject({
          watching: ["./envs.ts"],
          errors: [],
        });
        const ors = orsAt(`${base}/api/ors`);
        expect(await ors.get("/list_environments")).toEqual(expect.arrayContaining(["capitals", "math"]));
        const direct = await ors.episode("capitals", "test", 0);
        expect(await ors.call("capitals", direct, "answer", { answer: "Nairobi" })).toMatchObject({
          ok: true,
          output: { reward: 1, finished: true },
        });

        // `npx ors-playground check URL`: the command "Check this server" offers to copy.
        const check = await sh(`npx ors-playground check ${base}`, project, 6 * 60_000);
        expect(check.stdout).toMatch(/^Summary: .*checks/m);

        // `npx ors-playground test`: a golden episode recorded through the playground, exported, replayed.
        const relay = orsAt(`${base}/api/servers/local`);
        const sid = await relay.episode("capitals", "train", 1);
        expect(await relay.get("/capitals/prompt", sid)).toEqual([
          { type: "text", text: "What is the capital of Japan?", detail: null },
        ]);
        expect(await relay.call("capitals", sid, "answer", { answer: "Tokyo" })).toMatchObject({ ok: true });
        const list = async () =>
          (
            (await (
              await fetch(`${base}/api/trajectories?server=local`, { headers: WITH_TOKEN })
            ).json()) as {
              items: { id: string; sid: string; end_reason: string | null }[];
            }
          ).items;
        let id = "";
        for (let i = 0; i < 100 && !id; i++) {
          id = (await list()).find((t) => t.sid === sid && t.end_reason)?.id ?? "";
          if (!id) await new Promise((r) => setTimeout(r, 100));
        }
        expect(id).not.toBe("");
        const marked = await fetch(`${base}/api/trajectories/${id}/golden`, {
          method: "POST",
          headers: { ...WITH_TOKEN, "content-type": "application/json" },
          body: '{"golden": true}',
        });
        expect(marked.status).toBe(200);
        writeFileSync(
          path.join(project, "golden.jsonl"),
          await (await fetch(`${base}/api/trajectories/export?golden=1`, { headers: WITH_TOKEN })).text(),
        );
        const test = await sh(
          `npx ors-playground test golden.jsonl --server ${base}/api/ors`,
          project,
          2 * 60_000,
        );
        expect(test.stdout).toMatch(new RegExp(`^PASS +${id} +capitals · train/1 · 1 step`, "m"));

        // `check --quality` from the installed package: its episodes are recorded where this app reads them.
        const q = await sh(
          `npx ors-playground check ${base} --quality --env capitals --json`,
          project,
          6 * 60_000,
          {
            XDG_DATA_HOME: data,
          },
        );
        const quality = JSON.parse(q.stdout).quality;
        expect(quality.summary).toMatchObject({ findings: 0, passed: true });
        const played = await fetch(`${base}/api/trajectories?run=${quality.sample.plays[0].runId}`, {
          headers: WITH_TOKEN,
        });
        expect(((await played.json()) as { total: number }).total).toBe(2);
      } finally {
        await cli.stop();
      }
      // The server it started stopped with it.
      expect(spawnedPid).toBeGreaterThan(0);
      const gone = () => {
        try {
          process.kill(spawnedPid, 0);
          return false;
        } catch {
          return true;
        }
      };
      for (let i = 0; i < 100 && !gone(); i++) await new Promise((r) => setTimeout(r, 100));
      expect(gone()).toBe(true);
      // The command itself stopped cleanly on SIGTERM (npm's own exit status is npm's business).
      expect(cli.out()).toMatch(/stopping\n$/);
      expect(cli.err()).not.toMatch(/Error|unhandled/);
    },
    20 * 60_000,
  );
});
