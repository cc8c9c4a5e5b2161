// The GitHub Actions job of docs/ci.md run as a script, not on GitHub: the `run` block of each step,
// in order, as the runner runs them (bash -e, the job's variables, `${{ }}` expressions filled in,
// $GITHUB_OUTPUT a file), in a folder holding two versions of the diff fixture `shop`
// (tests/fixtures/diff) as `base/` and `head/`, with stand-ins on PATH for what the runner has: `npx`
// runs this repository's command, `npm ci` installs nothing, `gh` keeps the comment it is given.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { processTree } from "../../scripts/bench-proc";
import { unusedPort } from "../relay/helpers";
import { tempDir } from "../runs/helpers";

const REPO = path.resolve(__dirname, "../..");
const FIXTURES = path.join(REPO, "tests/fixtures");

/** The `run` blocks of the job's steps, in order, and each step's name. */
function jobSteps(doc: string): { name: string; run: string }[] {
  const marker = doc.indexOf("<!-- ci-job:");
  const start = doc.indexOf("```yaml", marker);
  const yaml = doc.slice(doc.indexOf("\n", start) + 1, doc.indexOf("\n```", start)).split("\n");
  const steps: { name: string; run: string }[] = [];
  let name = "";
  for (let i = 0; i < yaml.length; i++) {
    const line = yaml[i]!;
    const n = /^\s+- name: (.*)$/.exec(line) ?? /^\s+- uses: (.*)$/.exec(line);
    if (n) name = n[1]!;
    const r = /^(\s+)run: (.*)$/.exec(line);
    if (!r) continue;
    if (r[2] !== "|") {
      steps.push({ name, run: r[2]! });
      continue;
    }
    const body: string[] = [];
    const indent = r[1]!.length + 2;
    while (i + 1 < yaml.length && (yaml[i + 1]!.trim() === "" || yaml[i + 1]!.search(/\S/) >= indent))
      body.push(yaml[++i]!.slice(indent));
    steps.push({ name, run: body.join("\n") });
  }
  return steps;
}

const dir = tempDir("ci-job-");
const pids: number[] = [];

afterAll(async () => {
  for (const f of ["base.pid", "head.pid"]) {
    const file = path.join(dir, f);
    if (fs.existsSync(file)) pids.push(Number(fs.readFileSync(file, "utf8").trim()));
  }
  // A pid file holds the job's background shell, whose child is the server: the whole tree is
  // stopped (a shell killed alone leaves its server running).
  const tree = pids.filter((p) => p > 0).flatMap((pid) => processTree(pid));
  for (const pid of tree.reverse())
    try {
      process.kill(pid, "SIGTERM");
    } catch {}
});

function shim(bin: string, name: string, body: string) {
  fs.writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
}

function bash(script: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn("bash", ["-e", "-o", "pipefail", "-c", script], {
    cwd: dir,
    env: { ...process.env, ...env },
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, out })));
}

describe("the GitHub Actions job of docs/ci.md", () => {
  it("starts both versions, reports what changed, posts the Markdown as a comment, and fails on the breaking change", async () => {
    for (const [side, version] of [
      ["base", "shop-v1.ts"],
      ["head", "shop-v2.ts"],
    ]) {
      fs.mkdirSync(path.join(dir, side));
      fs.writeFileSync(
        path.join(dir, side, "envs.ts"),
        `export { default } from ${JSON.stringify(path.join(FIXTURES, "diff", version))};\n`,
      );
      fs.copyFileSync(path.join(FIXTURES, "quality/oracle.ts"), path.join(dir, side, "oracle.ts"));
    }
    const bin = path.join(dir, "bin");
    fs.mkdirSync(bin);
    shim(
      bin,
      "npx",
      `[ "$1" = ors-playground ] || { echo "npx $*: not in this job" >&2; exit 127; }\nshift\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(REPO, "bin/ors-playground.mjs"))} "$@"`,
    );
    shim(bin, "npm", `[ "$1" = ci ] || exit 127`);
    shim(
      bin,
      "gh",
      `echo "$@" > ${JSON.stringify(path.join(dir, "gh.args"))}\nwhile [ $# -gt 0 ]; do [ "$1" = --body-file ] && cp "$2" ${JSON.stringify(path.join(dir, "comment.md"))}; shift; done`,
    );
    const output = path.join(dir, "github-output");
    fs.writeFileSync(output, "");
    const env: Record<string, string> = {
      PATH: `${bin}:${process.env.PATH}`,
      ORS_ENV: "shop",
      BASE_PORT: String(await unusedPort()),
      HEAD_PORT: String(await unusedPort()),
      PLAYGROUND_DATA_DIR: path.join(dir, "playground"),
      GITHUB_OUTPUT: output,
      GH_TOKEN: "a-token",
      NO_COLOR: "1",
    };
    const outputs = () =>
      Object.fromEntries(
        fs
          .readFileSync(output, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => l.split("=") as [string, string]),
      );
    const fill = (run: string) =>
      run
        .replace(/\$\{\{ github\.event\.pull_request\.number \}\}/g, "7")
        .replace(/\$\{\{ github\.repository \}\}/g, "owner/repo")
        .replace(/\$\{\{ steps\.ors\.outputs\.(\w+) \}\}/g, (_, k: string) => outputs()[k] ?? "");

    const steps = jobSteps(fs.readFileSync(path.join(REPO, "docs/ci.md"), "utf8"));
    expect(steps.map((s) => s.name)).toEqual([
      "Install both versions",
      "Start both versions",
      "What changed, quality, gaming",
      "Comment on the pull request",
      "Fail on a breaking change, a flip or a finding",
    ]);
    const codes: (number | null)[] = [];
    for (const s of steps) {
      const r = await bash(fill(s.run), env);
      codes.push(r.code);
      if (s.name !== "Fail on a breaking change, a flip or a finding")
        expect(r.code, `${s.name}:\n${r.out}`).toBe(0);
    }
    // The breaking changes of shop v1 → v2 fail the job, after the comment is posted.
    expect(outputs()).toMatchObject({ diff: "1", check: expect.stringMatching(/^[01]$/) });
    expect(codes.at(-1)).toBe(1);
    expect(fs.readFileSync(path.join(dir, "gh.args"), "utf8").trim()).toBe(
      "pr comment 7 --repo owner/repo --body-file diff.md",
    );
    const comment = fs.readFileSync(path.join(dir, "comment.md"), "utf8");
    expect(comment.split("\n")[0]).toBe(
      "### ❌ ORS diff: breaking: 8 breaking changes, 6 compatible, 5 cosmetic",
    );
    expect(comment).toContain("- tool refund removed (`shop/tools/refund`)");
    expect(comment).toMatch(
      /<summary>check --quality --probe<\/summary>\n\n```\n[\s\S]*Summary: .*quality: .*; probe: /,
    );
    expect(fs.readFileSync(path.join(dir, "diff.xml"), "utf8")).toContain('failures="8"');
    expect(fs.readFileSync(path.join(dir, "check.xml"), "utf8")).toContain("ORS reward probes of shop/train");
  }, 600_000);
});
