// Hot reload as the user sees it: the app's entry on the production build with ORS_ENVS pointing at
// a temporary module (reloaded on save in every mode); an episode is open in the browser when the
// file is saved with a new tool description and reward. The episode page says "Environment
// reloaded" (the episode ended, recorded with that error), and "Restart on this task" runs the new
// code. This spec starts its own server, on its own port, and stops it by its PID.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { echoModule } from "../tests/fixtures/echo-env-module";

const PORT = Number(process.env.E2E_RELOAD_PORT ?? 8762);
const BASE = `http://127.0.0.1:${PORT}`;

let dir = "";
let app: ChildProcess;

test.beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "ors-e2e-reload-"));
  writeFileSync(path.join(dir, "envs.ts"), echoModule("Say the word.", 1));
  app = spawn(process.execPath, ["--import", "tsx", "lib/app-server/main.ts", "--port", String(PORT)], {
    env: {
      ...process.env,
      ORS_ENVS: path.join(dir, "envs.ts"),
      ORS_ENVS_ONLY: "1",
      PLAYGROUND_DATA_DIR: path.join(dir, "data"),
      ORS_SERVERS: "",
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  app.stdout!.on("data", (d) => {
    out += d;
  });
  app.stderr!.on("data", (d) => {
    out += d;
  });
  await expect
    .poll(() => (app.exitCode === null ? out : `exited: ${out}`), { timeout: 60_000 })
    .toMatch(/ORS Playground \(production build\) on /);
});

test.afterAll(async () => {
  if (app && app.exitCode === null) {
    const exited = once(app, "exit");
    app.kill("SIGTERM");
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

test.use({ baseURL: BASE });

test("an open episode ends as 'Environment reloaded' on save; restarting runs the new code", async ({
  page,
}) => {
  await page.goto("/s/local/e/echo/episode/new?split=train&task=1");
  await page.getByRole("button", { name: "Start episode" }).click();
  await expect(page).toHaveURL(/\/s\/local\/e\/echo\/episode\/(?!new)[^/?]+$/);
  await expect(page.getByText("Say beta.")).toBeVisible();
  await expect(page.getByText("Say the word.")).toBeVisible();

  writeFileSync(path.join(dir, "envs.ts"), echoModule("Say the word, exactly.", 0.5));

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
