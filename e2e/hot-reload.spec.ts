// Hot reload as the user sees it: the app's entry on the production build (as `ors-playground start
// --env` runs it) with ORS_ENVS pointing at a temporary module (reloaded on save in every mode). An
// episode is open in the browser when the file is saved with a new tool description and reward: the
// episode page says "Environment reloaded" (the episode ended, recorded with that error), and
// "Restart on this task" runs the new code. A save of the same bytes ends nothing; a save that does
// not load shows "The last save did not load" with the error, its file, line and text on the
// episode's page and the environment's, until a fix loads. This spec starts its own server, on a free
// port, and stops it by its PID.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { echoModule } from "../tests/fixtures/echo-env-module";
import { collectOutput, stopGroup } from "../tests/support/child-output";
import { EpisodePage } from "./pages/episode";

let dir = "";
let file = "";
let app: ChildProcess;
/** What the app printed (stdout and stderr, in order). */
let out: () => string = () => "";
let base = "";

test.beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "ors-e2e-reload-"));
  file = path.join(dir, "envs.ts");
  writeFileSync(file, echoModule("Say the word.", 1));
  app = spawn(process.execPath, ["--import", "tsx", "lib/app-server/main.ts", "--port", "0"], {
    env: {
      ...process.env,
      ORS_ENVS: file,
      ORS_ENVS_ONLY: "1",
      PLAYGROUND_DATA_DIR: path.join(dir, "data"),
      ORS_SERVERS: "",
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  out = collectOutput(app).all;
  await expect
    .poll(() => (app.exitCode === null ? out() : `exited: ${out()}`), { timeout: 60_000 })
    .toMatch(/ORS Playground \(production build\) on /);
  base = /ORS Playground \(production build\) on (http:\/\/\S+)/.exec(out())![1]!;
});

test.afterAll(async () => {
  if (app?.pid) await stopGroup(app);
  rmSync(dir, { recursive: true, force: true });
});

/** Opens a new episode of echo on task `index` and waits for its prompt. */
async function startEpisode(page: Page, index: number, prompt: string): Promise<void> {
  await EpisodePage.start(page, { env: "echo", index, base });
  await expect(page.getByText(prompt)).toBeVisible();
}

test("an open episode ends as 'Environment reloaded' on save; restarting runs the new code", async ({
  page,
}) => {
  await startEpisode(page, 1, "Say beta.");
  await expect(page.getByText("Say the word.")).toBeVisible();

  writeFileSync(file, echoModule("Say the word, exactly.", 0.5));

  const banner = page.getByRole("status").filter({ hasText: "Environment reloaded" });
  await expect(banner).toBeVisible({ timeout: 15_000 });
  await expect(banner).toContainText(
    /environment reloaded: .*envs\.ts changed while this episode of echo ran on the old code/,
  );
  await expect(page.getByText("The episode has ended: its session is gone.")).toBeVisible();

  await banner.getByRole("link", { name: "Restart on this task" }).click();
  await page.getByRole("button", { name: "Start episode" }).click();
  await expect(page).toHaveURL(/\/s\/local\/e\/echo\/episode\/(?!new)[^/?]+$/);
  await expect(page.getByText("Say the word, exactly.")).toBeVisible();
  await page.getByLabel("word").fill("beta");
  await page.getByRole("button", { name: "Call say" }).click();
  const step = page.getByRole("article", { name: "Step 1: say" });
  await expect(step.getByText("yes", { exact: true })).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: "Episode finished" })).toBeVisible();
  await expect(page.getByRole("table", { name: "Reward per step" })).toContainText("0.5");
});

test("a save of the same bytes ends nothing; a save that does not load is shown on the episode and the environment until fixed", async ({
  page,
}) => {
  const serving = readFileSync(file, "utf8");
  await startEpisode(page, 0, "Say alpha.");
  const episode = page.url();

  // The same bytes (an editor's save): nothing reloads, the episode goes on.
  const seen = (out().match(/saved with the same contents/g) ?? []).length;
  writeFileSync(file, serving);
  await expect.poll(() => (out().match(/saved with the same contents/g) ?? []).length).toBe(seen + 1);
  await expect(page.getByRole("status").filter({ hasText: "Environment reloaded" })).toHaveCount(0);

  // A syntax error on the last line: the banner, with the file, line, column and the line's text.
  const broken = `${serving}export const oops = [;\n`;
  const line = broken.split("\n").length - 1;
  writeFileSync(file, broken);
  const banner = page.getByRole("alert", { name: "Reload failed" });
  await expect(banner).toBeVisible({ timeout: 15_000 });
  await expect(banner).toContainText("The last save did not load");
  await expect(banner).toContainText("echo could not be reloaded: it still runs its previous code");
  await expect(banner.getByTestId("reload-error-place")).toHaveText(`${file}:${line}:22`);
  await expect(banner).toContainText('Unexpected ";"');
  await expect(banner.getByText("export const oops = [;")).toBeVisible();
  await page.screenshot({ path: test.info().outputPath("reload-failed-episode.png"), fullPage: true });

  // The same on the environment's page.
  await page.goto(`${base}/s/local/e/echo`);
  const envBanner = page.getByRole("alert", { name: "Reload failed" });
  await expect(envBanner).toBeVisible({ timeout: 15_000 });
  await expect(envBanner.getByTestId("reload-error-place")).toHaveText(`${file}:${line}:22`);
  await page.screenshot({ path: test.info().outputPath("reload-failed-environment.png"), fullPage: true });

  // The previous code still serves the open episode.
  await page.goto(episode);
  await page.getByLabel("word").fill("alpha");
  await page.getByRole("button", { name: "Call say" }).click();
  await expect(
    page.getByRole("article", { name: "Step 1: say" }).getByText("yes", { exact: true }),
  ).toBeVisible();

  // A fix: the banner goes, and the environment's page shows the new tool description.
  writeFileSync(file, echoModule("Say the word, fixed.", 1));
  await page.goto(`${base}/s/local/e/echo`);
  await expect(page.getByText("Say the word, fixed.")).toBeVisible({ timeout: 15_000 });
  await expect(page.getByRole("alert", { name: "Reload failed" })).toHaveCount(0);
});
