// Golden episodes and "Export as Playwright test", end to end: an episode recorded through the
// relay is marked golden from the keyboard, found with the list's filter, exported with "Export
// golden"; its "Export as Playwright test" download is written to a gitignored folder and RUN by a
// child Playwright (this config's browser, no servers of its own) against this app, on another
// server name (PLAYGROUND_SERVER): it passes. The spec of a copy whose recorded reward was edited
// fails on that reward, and that of a copy whose first observation's spacing was edited fails on
// that text — and passes when exported with normalize_whitespace=1, as `test` would — so the
// generated assertions are real and compare as `test` does.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import type { Trajectory } from "@/lib/trajectory/schema";
import { downloadBy, jsonlOf } from "./steps";
import { importTrajectory, relayClient, trajectoryOf } from "./trajectories-helpers";

const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));
/** Where generated specs are written and run from (gitignored; outside e2e/, so this run never collects them). */
const GENERATED = path.join(REPO_ROOT, ".e2e-generated");

/** Runs the generated specs in GENERATED with a child Playwright; resolves with its exit code and output. */
function runGenerated(
  file: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const config = path.join(GENERATED, "playwright.config.ts");
  // The project's config (browser, timeouts), without its web servers: the app is already running.
  fs.writeFileSync(
    config,
    [
      "// Written by e2e/golden.spec.ts: runs the specs of this folder against the app that run started.",
      'import { defineConfig } from "@playwright/test";',
      'import base from "../playwright.config";',
      "",
      "export default defineConfig({",
      "  ...base,",
      '  testDir: ".",',
      '  outputDir: "./test-results",',
      "  webServer: undefined,",
      "  use: { ...base.use, baseURL: process.env.PLAYGROUND_URL },",
      "});",
      "",
    ].join("\n"),
  );
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        path.join(REPO_ROOT, "node_modules/@playwright/test/cli.js"),
        "test",
        "--config",
        config,
        "--reporter",
        "line",
        path.basename(file),
      ],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, ...env, FORCE_COLOR: "0" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout!.on("data", (d: Buffer) => {
      output += d.toString();
    });
    child.stderr!.on("data", (d: Buffer) => {
      output += d.toString();
    });
    child.once("exit", (code) => resolve({ code, output }));
  });
}

/** A guess episode through the relay: a hint, a wrong guess, the right one (finished, reward 0.9). */
async function recordGuess(base: string, index: number): Promise<Trajectory> {
  const ors = relayClient(base, "local");
  const { task } = await ors.task("guess", "train", index);
  const target = (task as { target: number }).target;
  const { sid } = await ors.createSession();
  await ors.create(sid, { env_name: "guess", split: "train", index });
  await ors.prompt("guess", sid);
  await ors.callTool("guess", sid, { name: "hint", input: {} });
  await ors.callTool("guess", sid, { name: "guess", input: { number: target === 1 ? 2 : 1 } });
  await ors.callTool("guess", sid, { name: "guess", input: { number: target } });
  await ors.delete(sid);
  return trajectoryOf(base, "local", sid, 3);
}

test("mark golden from the keyboard, filter the list, export golden JSONL", async ({ page, baseURL }) => {
  const t = await recordGuess(baseURL!, 5);
  const other = await recordGuess(baseURL!, 6);
  expect(t.steps.map((s) => [s.tool, s.reward, s.finished])).toEqual([
    ["hint", 0, false],
    ["guess", 0, false],
    ["guess", 0.9, true],
  ]);

  await page.goto(`/trajectories/${t.id}`);
  const toggle = page.getByRole("button", { name: "Golden", exact: true });
  await expect(toggle).toHaveAttribute("aria-pressed", "false");
  await toggle.focus();
  await page.keyboard.press("Space");
  await expect(toggle).toHaveAttribute("aria-pressed", "true");
  await page.reload();
  await expect(page.getByRole("button", { name: "Golden", exact: true })).toHaveAttribute(
    "aria-pressed",
    "true",
  );
  expect(((await (await fetch(`${baseURL}/api/trajectories/${t.id}`)).json()) as Trajectory).golden).toBe(
    true,
  );

  // The list: "Golden only" keeps it and drops the other one.
  await page.goto("/trajectories");
  await page.getByLabel("Golden only").check();
  await expect(page).toHaveURL(/[?&]golden=1/);
  const list = page.getByRole("list", { name: "Trajectories" });
  await expect(list.getByRole("listitem").first()).toBeVisible();
  await expect(list.locator(`a[href="/trajectories/${t.id}"]`)).toHaveCount(1);
  await expect(list.locator(`a[href="/trajectories/${other.id}"]`)).toHaveCount(0);

  // "Export golden": the JSONL `npx ors-playground test` takes, every line golden.
  const lines = await jsonlOf<Trajectory>(
    await downloadBy(page.getByRole("link", { name: "Export golden" })),
  );
  expect(lines.some((l) => l.id === t.id)).toBe(true);
  expect(lines.some((l) => l.id === other.id)).toBe(false);
  expect(lines.every((l) => l.golden === true)).toBe(true);

  // Unmarked again from the trajectory page (a click this time).
  await page.goto(`/trajectories/${t.id}`);
  await page.getByRole("button", { name: "Golden", exact: true }).click();
  await expect(page.getByRole("button", { name: "Golden", exact: true })).toHaveAttribute(
    "aria-pressed",
    "false",
  );
  await expect
    .poll(
      async () => ((await (await fetch(`${baseURL}/api/trajectories/${t.id}`)).json()) as Trajectory).golden,
    )
    .toBeUndefined();
});

test("Export as Playwright test: the generated spec runs and passes; it fails on a wrong reward", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(480_000);
  const t = await recordGuess(baseURL!, 7);
  fs.mkdirSync(GENERATED, { recursive: true });

  await page.goto(`/trajectories/${t.id}`);
  const download = await downloadBy(page.getByRole("link", { name: "Export as Playwright test" }));
  expect(download.suggestedFilename()).toBe(`trajectory-${t.id}.spec.ts`);
  const file = path.join(GENERATED, download.suggestedFilename());
  await download.saveAs(file);
  const spec = fs.readFileSync(file, "utf8");
  expect(spec).toContain(`from trajectory ${t.id}:`);
  expect(spec).toContain(`// Exported from ${baseURL}/trajectories/${t.id}`);

  // Run against this app, on the second server (the standalone host, the same environments).
  const passed = await runGenerated(file, { PLAYGROUND_URL: baseURL!, PLAYGROUND_SERVER: "second" });
  expect(passed.output).toMatch(/1 passed/);
  expect(passed.code).toBe(0);
  // It drove the UI through the relay: the episode it ran is recorded on `second`, step for step.
  const runs = (await (
    await fetch(`${baseURL}/api/trajectories?server=second&env=guess&task=train/7&limit=1`)
  ).json()) as { items: { id: string }[] };
  const replayed = (await (
    await fetch(`${baseURL}/api/trajectories/${runs.items[0]!.id}`)
  ).json()) as Trajectory;
  expect(replayed.steps.map((s) => [s.tool, s.input, s.reward, s.finished])).toEqual(
    t.steps.map((s) => [s.tool, s.input, s.reward, s.finished]),
  );
  expect(replayed.end_reason).toBe("finished");

  // A copy whose last reward was recorded as 0.7: its spec fails on that step's reward.
  const edited: Trajectory = {
    ...t,
    id: `${t.id}-edited`,
    steps: t.steps.map((s) => (s.index === 3 ? { ...s, reward: 0.7 } : s)),
    total_reward: 0.7,
    origin: null,
  };
  await importTrajectory(baseURL!, edited);
  const res = await fetch(`${baseURL}/api/trajectories/${edited.id}/playwright`);
  expect(res.headers.get("content-disposition")).toContain(`trajectory-${edited.id}.spec.ts`);
  const wrongFile = path.join(GENERATED, `trajectory-${edited.id}.spec.ts`);
  fs.writeFileSync(wrongFile, await res.text());
  const failed = await runGenerated(wrongFile, { PLAYGROUND_URL: baseURL! });
  expect(failed.code).toBe(1);
  expect(failed.output).toMatch(/1 failed/);
  expect(failed.output).toContain("reward\\s*\\+0\\.7");

  // A copy whose first observation was recorded with other spacing: fails exactly on that text, and
  // passes when exported with the whitespace normalised (the options `test` takes).
  const hint = t.steps[0]!.blocks[0]!;
  expect(hint.type).toBe("text");
  const spaced: Trajectory = {
    ...t,
    id: `${t.id}-spaced`,
    steps: t.steps.map((s) =>
      s.index === 1
        ? {
            ...s,
            blocks: [{ type: "text", text: `  ${(hint as { text: string }).text.replace(/ /g, "  ")}\n` }],
          }
        : s,
    ),
    origin: null,
  };
  await importTrajectory(baseURL!, spaced);
  const exact = path.join(GENERATED, `trajectory-${spaced.id}.spec.ts`);
  fs.writeFileSync(exact, await (await fetch(`${baseURL}/api/trajectories/${spaced.id}/playwright`)).text());
  const exactRun = await runGenerated(exact, { PLAYGROUND_URL: baseURL! });
  expect(exactRun.code).toBe(1);
  expect(exactRun.output).toMatch(/1 failed/);
  expect(exactRun.output).toContain("The  number  is  between");
  const loose = path.join(GENERATED, `trajectory-${spaced.id}-loose.spec.ts`);
  const looseRes = await fetch(`${baseURL}/api/trajectories/${spaced.id}/playwright?normalize_whitespace=1`);
  const looseSpec = await looseRes.text();
  expect(looseSpec).toContain("const NORMALIZE_WHITESPACE = true;");
  fs.writeFileSync(loose, looseSpec);
  const looseRun = await runGenerated(loose, { PLAYGROUND_URL: baseURL! });
  expect(looseRun.output).toMatch(/1 passed/);
  expect(looseRun.code).toBe(0);
  const bad = await fetch(`${baseURL}/api/trajectories/${spaced.id}/playwright?mask=(`);
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as { detail: string }).detail).toMatch(/mask: not a regular expression/);
});

test("the playwright export refuses what it cannot re-run", async ({ baseURL }) => {
  expect((await fetch(`${baseURL}/api/trajectories/no-such-id/playwright`)).status).toBe(404);
  const t = await recordGuess(baseURL!, 8);
  const noTask = { ...t, id: `${t.id}-no-task`, task: null, origin: null };
  await importTrajectory(baseURL!, noTask);
  const res = await fetch(`${baseURL}/api/trajectories/${noTask.id}/playwright`);
  expect(res.status).toBe(422);
  expect(((await res.json()) as { detail: string }).detail).toMatch(/task is unknown/);
});
