// Team scale on the production build, in Chromium: two replicas of the app on one PostgreSQL
// database (a throwaway cluster, tests/support/postgres.ts) — replica A started by the CLI
// (`ors-playground start`), replica B by the server entry of `npm start`. A script plays an
// episode through A's relay while a page on B shows it live, step by step; neither replica writes
// to its data folder. This spec starts its own processes on free loopback ports and stops them by
// their PIDs.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { missingComponent } from "../tests/support/debian";
import {
  ensurePostgresBinaries,
  type PostgresCluster,
  startPostgresCluster,
} from "../tests/support/postgres";
import { TrajectoryPage } from "./pages/trajectory";

// The access token of both replicas: pages and APIs need it (sent as a bearer or the token cookie).
const TOKEN = "team-scale-e2e-token";
const auth = { authorization: `Bearer ${TOKEN}` };

interface App {
  url: string;
  child: ChildProcess;
  out(): string;
}

function startApp(args: string[], env: Record<string, string>, ready: RegExp): Promise<App> {
  const childEnv: Record<string, string | undefined> = {
    ...process.env,
    ...env,
    PLAYGROUND_TOKEN: TOKEN,
    ORS_API_KEYS: "",
    ORS_SERVERS: "",
  };
  delete childEnv.NODE_ENV;
  const child = spawn(process.execPath, args, {
    env: childEnv as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      const m = ready.exec(out);
      if (m) {
        clearInterval(timer);
        resolve({ url: m[1]!, child, out: () => out });
      } else if (child.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`exited ${child.exitCode}:\n${out}`));
      }
    }, 100);
  });
}

async function stopApp(app: App | undefined) {
  if (!app || app.child.exitCode !== null || app.child.signalCode !== null) return;
  const exited = once(app.child, "exit");
  app.child.kill("SIGTERM");
  const timer = setTimeout(() => app.child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

/** Plays ORS through a replica's relay, with the app's token. */
function relay(base: string, server: string) {
  const url = `${base}/api/servers/${server}`;
  const post = async (p: string, body: unknown, sid?: string) => {
    const res = await fetch(`${url}${p}`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json", ...(sid ? { "x-session-id": sid } : {}) },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return text;
  };
  return {
    async episode(env: string, index: number): Promise<string> {
      const { sid } = JSON.parse(await post("/create_session", {})) as { sid: string };
      await post("/create", { env_name: env, split: "train", index }, sid);
      const prompt = await fetch(`${url}/${env}/prompt`, { headers: { ...auth, "x-session-id": sid } });
      expect(prompt.status).toBe(200);
      return sid;
    },
    call: (env: string, sid: string, name: string, input: unknown) =>
      post(`/${env}/call`, { name, input }, sid),
  };
}

const binaries = ensurePostgresBinaries();
if (!binaries.ok) missingComponent("PostgreSQL", "e2e/team-scale.spec.ts", binaries.reason);

let cluster: PostgresCluster | undefined;
let a: App | undefined;
let b: App | undefined;
let dir = "";

test.beforeAll(async () => {
  test.setTimeout(180_000);
  if (!binaries.ok) return;
  cluster = await startPostgresCluster({ binDir: binaries.path });
  const url = await cluster.createDatabase("e2e_team_scale");
  dir = mkdtempSync(path.join(os.tmpdir(), "ors-e2e-team-"));
  const env = { PLAYGROUND_DATABASE_URL: url };
  [a, b] = await Promise.all([
    startApp(
      ["bin/ors-playground.mjs", "start", "--port", "0", "--data-dir", path.join(dir, "a")],
      env,
      /Open\s+(http:\/\/[\d.:]+)/,
    ),
    startApp(
      ["--import", "tsx", "lib/app-server/main.ts", "--port", "0"],
      { ...env, PLAYGROUND_DATA_DIR: path.join(dir, "b") },
      // Ready once it has said where it keeps its data (the last line of its banner that matters here).
      /ORS Playground \(production build\) on (http:\/\/\S+)[\s\S]*Trajectories, runs and added servers: /,
    ),
  ]);
});

test.afterAll(async () => {
  await Promise.all([stopApp(a), stopApp(b)]);
  await cluster?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("a page on replica B shows live the episode a script plays through replica A", async ({ page }) => {
  expect(a!.out()).toMatch(/Data\s+PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/e2e_team_scale/);
  expect(b!.out()).toContain("Trajectories, runs and added servers: PostgreSQL at postgres://");
  // The token as a cookie (where the app requires one), then B's list of running episodes.
  await page.goto(`${b!.url}/?token=${TOKEN}`);
  await page.goto(`${b!.url}/live`);

  const ors = relay(a!.url, "local");
  const sid = await ors.episode("dice", 0);
  const item = page.getByRole("listitem").filter({ hasText: sid });
  await item.getByRole("link", { name: "dice · train/0" }).click();
  await expect(page.getByLabel("End reason: Running")).toBeVisible();

  // Each call through A shows on B's page as it is made, without a reload.
  await ors.call("dice", sid, "echo", { text: "made on A" });
  await expect(new TrajectoryPage(page).steps).toHaveCount(1);
  await expect(page.getByText("echo: made on A")).toBeVisible();
  await ors.call("dice", sid, "stop", {});
  await expect(new TrajectoryPage(page).steps).toHaveCount(2);
  await expect(page.getByLabel("End reason: Finished")).toBeVisible();

  await page.reload();
  await expect(new TrajectoryPage(page).steps).toHaveCount(2);
  expect(existsSync(path.join(dir, "a"))).toBe(false);
  expect(existsSync(path.join(dir, "b"))).toBe(false);
});
