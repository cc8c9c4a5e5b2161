// The author's server under the playground's wing, as a user sees it: the CLI's `start` runs a server
// itself (`--spawn ... --watch DIR`, and a second one from the config file that crashes at once), and
// in Chromium the server's page shows its process and log live; an episode open on it ends saying the
// server restarted when a watched file changes; the crashed one shows its exit code and its last lines,
// and Restart runs it again. The printed URL (with the token) opens the spawned server's page. This
// spec starts its own playground on a free port and stops it by its process group.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { collectOutput, stopGroup } from "../tests/support/child-output";
import { alive } from "../tests/support/processes";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const REFERENCE = path.join(REPO, "tests/fixtures/reference-server/main.ts");
const SHOTS = path.join(REPO, "test-results");

let dir = "";
let app: ChildProcess;
/** What the app printed (stdout and stderr, in order). */
let out: () => string = () => "";
let base = "";
let openUrl = "";

test.beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "ors-e2e-spawn-"));
  writeFileSync(path.join(dir, "world.txt"), "version 1\n");
  writeFileSync(
    path.join(dir, "playground.json"),
    JSON.stringify({
      spawn: {
        crashy: {
          command: [
            process.execPath,
            "-e",
            "console.error('boom: missing dependency leftpad'); process.exit(3)",
          ],
        },
      },
    }),
  );
  const env: Record<string, string | undefined> = {
    ...process.env,
    ORS_SERVERS: "",
    PLAYGROUND_DATA_DIR: path.join(dir, "data"),
  };
  delete env.NODE_ENV;
  app = spawn(
    process.execPath,
    [
      "bin/ors-playground.mjs",
      "--spawn",
      `"${process.execPath}" --import tsx ${REFERENCE} --port {port} --host 127.0.0.1`,
      "--spawn-name",
      "ref",
      "--watch",
      dir,
      "--config",
      path.join(dir, "playground.json"),
      "--port",
      "0",
    ],
    { cwd: REPO, env: env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  out = collectOutput(app).all;
  await expect
    .poll(() => (app.exitCode === null ? out() : `exited: ${out()}`), { timeout: 120_000 })
    .toMatch(/\[ref\] ready at http:\/\/127\.0\.0\.1:\d+/);
  openUrl = /Open\s+(\S+)/.exec(out())![1]!;
  base = new URL(openUrl).origin;
});

/** The PID of a spawned server, from its log's API. */
async function pidOf(name: string): Promise<number> {
  const token = new URL(openUrl).searchParams.get("token")!;
  const res = await fetch(`${base}/api/servers/${name}/log`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await res.json()) as { status: { pid: number | null } };
  return body.status.pid!;
}

test.afterAll(async () => {
  if (app?.pid) await stopGroup(app);
  rmSync(dir, { recursive: true, force: true });
});

test("the start banner lists the spawned servers, and their crash", () => {
  expect(out()).toMatch(
    / {2}ref\s+http:\/\/127\.0\.0\.1:\d+\n\s+runs: .*reference-server\/main\.ts --port \{port\} --host 127\.0\.0\.1/,
  );
  expect(out()).toMatch(/restarted when files under .* change; its log: http:\/\/127\.0\.0\.1:\d+\/s\/ref/);
  expect(out()).toContain(
    "[crashy] exited with code 3; the end of its stderr:\n[crashy]   boom: missing dependency leftpad",
  );
  // Two spawned servers: the printed URL is the home page's, with the token.
  expect(openUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/);
});

test("the printed URL's token works on the spawned server's page too", async ({ browser }) => {
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  const token = new URL(openUrl).searchParams.get("token")!;
  await page.goto(`${base}/s/ref?token=${encodeURIComponent(token)}`);
  await expect(page).toHaveURL(`${base}/s/ref`);
  await expect(page.getByRole("heading", { name: "ref" })).toBeVisible();
  await context.close();
});

test("the server's page shows its process and its log, live", async ({ page }) => {
  await page.goto(`${base}/s/ref`);
  await expect(page.getByLabel("state: running")).toBeVisible();
  const log = page.getByRole("log", { name: "Log of ref" });
  await expect(log).toContainText(/reference server listening on http:\/\/127\.0\.0\.1:\d+/);
  await expect(log).toContainText(/▸ ready: answers GET \/health at http:\/\/127\.0\.0\.1:\d+/);
  await expect(page.getByText(`when a file changes under ${dir}`)).toBeVisible();
  await expect(page.getByRole("link", { name: "farmplanner" })).toBeVisible();
  await page.screenshot({ path: path.join(SHOTS, "spawn-server-page.png"), fullPage: true });
  await page.goto(`${base}/`);
  await expect(page.getByRole("heading", { name: "ref" }).locator("..")).toContainText("started here");
});

test("a change under --watch restarts it; the episode open on it ends saying so", async ({
  page,
  context,
}) => {
  await page.goto(`${base}/s/ref/e/farmplanner/episode/new?split=train&task=0`);
  await page.getByRole("button", { name: "Start episode" }).click();
  await expect(page).toHaveURL(/\/s\/ref\/e\/farmplanner\/episode\/(?!new)[^/?]+$/);
  const serverPage = await context.newPage();
  await serverPage.goto(`${base}/s/ref`);
  await expect(serverPage.getByLabel("state: running")).toBeVisible();

  writeFileSync(path.join(dir, "world.txt"), "version 2\n");

  const banner = page.getByRole("status").filter({ hasText: "server restarted" });
  await expect(banner).toBeVisible({ timeout: 30_000 });
  await expect(banner).toContainText(
    /server restarted: .*world\.txt changed, so the playground started server "ref" again and the sessions on it are gone/,
  );
  await expect(banner.getByRole("link", { name: "Restart on this task" })).toBeVisible();
  await page.screenshot({ path: path.join(SHOTS, "spawn-episode-ended.png"), fullPage: true });
  const log = serverPage.getByRole("log", { name: "Log of ref" });
  await expect(log).toContainText(/▸ restarting: .*world\.txt changed/);
  await expect(serverPage.getByLabel("state: running")).toBeVisible({ timeout: 30_000 });
  await expect(serverPage.getByText("restarted 1 time")).toBeVisible();
  await serverPage.screenshot({ path: path.join(SHOTS, "spawn-restarted.png"), fullPage: true });
});

test("a crashed server shows its exit code and last lines; Restart runs it again", async ({ page }) => {
  await page.goto(`${base}/s/crashy`);
  await expect(page.getByLabel("state: exited with code 3")).toBeVisible();
  await expect(page.getByRole("alert").filter({ hasText: "crashy exited" })).toContainText(
    /crashy exited with code 3 at \d\d:\d\d:\d\d/,
  );
  const log = page.getByRole("log", { name: "Log of crashy" });
  await expect(log).toContainText("boom: missing dependency leftpad");
  await expect(log).toContainText("▸ exited with code 3");
  // Without --restart on-failure it stays down, and the page says so, and how to have it come back.
  await expect(page.getByRole("alert").filter({ hasText: "crashy exited" })).toContainText(
    "It stays down until you press Restart on its page (start it with --restart on-failure",
  );
  // The relay refuses it, saying why: the environment list says so.
  await expect(page.getByText(/is not running: it exited with code 3/).first()).toBeVisible();
  await page.screenshot({ path: path.join(SHOTS, "spawn-crashed.png"), fullPage: true });

  await page.getByRole("button", { name: "Restart crashy" }).click();
  await expect(log).toContainText("▸ restarting: restarted from the playground's page");
  await expect(log.getByText("boom: missing dependency leftpad", { exact: true })).toHaveCount(2);
  await expect(page.getByLabel("state: exited with code 3")).toBeVisible();
});

test("Ctrl-C stops the playground and the servers it started", async () => {
  const pid = await pidOf("ref");
  expect(alive(pid)).toBe(true);
  const exited = once(app, "exit");
  // As a terminal's Ctrl-C: SIGINT to the playground's process group (the servers have their own).
  process.kill(-app.pid!, "SIGINT");
  await exited;
  expect(out()).toContain("stopping");
  await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
});
