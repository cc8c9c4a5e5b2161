// One episode, one truth (e2e, Chromium): the episode page is a view of the episode recorded on
// the server. Two browser contexts on one episode show the same steps live; reopening never sends
// a second /prompt upstream (counted at the reference-shaped test server, `py`); finished is final
// in the UI, and an outside client's calls after it are kept as after the end; fork and replay work
// against the reference-shaped server; the idle countdown uses the server's real limit where known;
// keep-alive pauses without user activity; an ended episode reopens as its record; a task_spec the
// environment cannot use ends as an error with the environment's message.
import { type Browser, expect, type Page, test } from "@playwright/test";
import { hydrated } from "./pages/environment";
import { EpisodePage } from "./pages/episode";
import { importTrajectory, relayClient, relaySession, trajectoryOf } from "./trajectories-helpers";

const REF = `http://127.0.0.1:${Number(process.env.E2E_REFERENCE_PORT ?? 8198)}`;
/** A loopback port of the episode e2e range where nothing listens. */
const GONE_PORT = Number(process.env.E2E_GONE_PORT ?? 8548);

type Stats = { sessions: Record<string, Record<string, number>> };
async function promptsAtServer(sid: string): Promise<number> {
  const stats = (await (await fetch(`${REF}/__ref/stats`)).json()) as Stats;
  return stats.sessions[sid]?.prompt ?? 0;
}

const FOUR_WHEAT = Object.fromEntries(
  [1, 2, 3, 4].map((i) => [`slot_${i}`, { crop: "wheat", level: "medium" }]),
);

/** Starts an episode on `server` and returns its session id once it shows its reward. */
async function startOn(
  page: Page,
  server: string,
  env: string,
  split: string,
  index: number,
): Promise<string> {
  const episode = await EpisodePage.start(page, { server, env, split, index });
  await expect(episode.cumulativeReward).toBeVisible();
  return episode.sid;
}

async function secondTab(browser: Browser, url: string): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  return page;
}

test("two browsers on one episode see the same steps live; the prompt is asked once", async ({
  page,
  browser,
  baseURL,
}) => {
  const sid = await startOn(page, "py", "farmplanner", "train", 0);
  await expect(page.getByRole("region", { name: "Prompt" })).toContainText("world 1");
  await page.getByRole("radio", { name: "view_state" }).click();
  await page.getByRole("button", { name: "Call view_state" }).click();
  await expect(new EpisodePage(page).step(1, "view_state").getByText("ok", { exact: true })).toBeVisible();

  // A second browser (its own context: nothing shared with the first but the server).
  const other = await secondTab(browser, page.url());
  await expect(new EpisodePage(other).step(1, "view_state").getByText("ok", { exact: true })).toBeVisible();
  await expect(other.getByRole("region", { name: "Prompt" })).toContainText("world 1");

  // A call started in one shows up live in the other, with the same number and reward.
  await other.getByRole("radio", { name: "read" }).click();
  await other.getByRole("button", { name: "Call read" }).click();
  await expect(new EpisodePage(page).step(2, "read").getByText("ok", { exact: true })).toBeVisible();
  await expect(
    new EpisodePage(page).step(2, "read").getByRole("region", { name: "Output of step 2" }),
  ).toContainText("world: 1");

  // An outside client plays the season through the relay: both browsers follow it to the end.
  const ors = relayClient(baseURL!, "py");
  for (let i = 0; i < 3; i++) await ors.callTool("farmplanner", sid, { name: "plan", input: FOUR_WHEAT });
  for (const p of [page, other]) {
    await expect(new EpisodePage(p).step(5, "plan").getByText("finished", { exact: true })).toBeVisible();
    await expect(p.getByRole("status").filter({ hasText: "Episode finished" })).toBeVisible();
    await expect(p.getByText("Cumulative reward").locator("..")).toContainText("4.8");
    await expect(p.getByRole("link", { name: "Restart on this task" })).toBeVisible();
  }
  // Reloads and the second browser never asked the environment again: its world was not reset.
  await page.reload();
  await other.reload();
  await expect(new EpisodePage(other).step(5, "plan").getByText("ok", { exact: true })).toBeVisible();
  await expect(
    new EpisodePage(page).step(3, "plan").getByRole("region", { name: "Output of step 3" }),
  ).toContainText("world: 1");
  expect(await promptsAtServer(sid)).toBe(1);
  await other.context().close();
});

test("finished is final: no more calls from the UI; an outside client's calls are kept after the end", async ({
  page,
  baseURL,
}) => {
  const sid = await startOn(page, "py", "coffeeshop", "train", 0);
  const ors = relayClient(baseURL!, "py");
  for (let day = 0; day < 2; day++)
    await ors.callTool("coffeeshop", sid, { name: "set_price", input: { item_id: "espresso", price: 3 } });
  await expect(page.getByRole("status").filter({ hasText: "Episode finished" })).toBeVisible();
  const total = await page.getByText("Cumulative reward").locator("..").textContent();
  // The tool panel offers nothing to call: the first tool's button is there, disabled.
  await expect(page.getByRole("button", { name: "Call buy" })).toBeDisabled();
  await expect(page.getByText("The episode finished: no more calls.")).toBeVisible();

  // The server still takes calls after finished: they are recorded, marked, and not counted.
  await ors.callTool("coffeeshop", sid, { name: "set_price", input: { item_id: "espresso", price: 3 } });
  const late = new EpisodePage(page).step(3, "set_price");
  await expect(late.getByText("after the end")).toBeVisible();
  await expect(page.getByText("Cumulative reward").locator("..")).toHaveText(total!);
  const t = await trajectoryOf(baseURL!, "py", sid, 3);
  expect(t.steps[2]!.after_end).toBe(true);
  expect(t.ended_at).toBe(t.steps[1]!.ended_at);
  expect(t.total_reward).toBeCloseTo((t.steps[0]!.reward ?? 0) + (t.steps[1]!.reward ?? 0), 9);
});

test("fork and replay run against the reference-shaped server", async ({ page, baseURL }) => {
  // This server answers create_session as SSE.
  const { call, close } = await relaySession(baseURL!, "py", "farmplanner", { split: "train", index: 0 });
  await call("plan", FOUR_WHEAT);
  await call("read", {});
  const t = await close(2);

  await page.goto(`/trajectories/${t.id}?step=1`);
  await page.getByRole("button", { name: "Fork at step 1" }).click();
  const result = page.getByRole("status", { name: "Fork result" });
  await expect(result).toContainText("Every replayed step matched the original.");
  await expect(result.getByRole("link", { name: "Continue in the episode view" })).toHaveAttribute(
    "href",
    /^\/s\/py\/e\/farmplanner\/episode\/[^/]+$/,
  );

  await page.goto(`/trajectories/${t.id}`);
  await page.getByRole("button", { name: "Replay and diff" }).click();
  await expect(page).toHaveURL(/\/trajectories\/compare\?a=.+&b=.+/);
  await expect(page.getByRole("status", { name: "Diff summary" })).toHaveText("Identical step by step.");
});

test("replay names the real cause when the server is down", async ({ page, baseURL }) => {
  // A trajectory of a server that is gone (imported): the error says unreachable, not a generic 502.
  const imported = {
    format: "ors-trajectory/1",
    id: `gone${Date.now()}`,
    server: "gone",
    env: "math",
    sid: "s",
    task: { split: "train", index: 0 },
    prompt: null,
    steps: [
      {
        index: 1,
        tool: "submit",
        input: { answer: "4" },
        task_id: null,
        started_at: 1,
        ended_at: 2,
        latency_ms: 1,
        ok: true,
        error: null,
        blocks: [],
        reward: 1,
        finished: true,
        metadata: null,
        events: [],
      },
    ],
    total_reward: 1,
    started_at: 1,
    ended_at: 2,
    end_reason: "finished",
    error: null,
  };
  const added = await fetch(`${baseURL}/api/servers`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ name: "gone", url: `http://127.0.0.1:${GONE_PORT}` }),
  });
  try {
    expect(added.status).toBeLessThan(300);
    await importTrajectory(baseURL!, imported);
    await page.goto(`/trajectories/${imported.id}`);
    await page.getByRole("button", { name: "Replay and diff" }).click();
    const alert = page.getByRole("alert").filter({ hasText: "Server unreachable" });
    await expect(alert).toContainText(/server "gone" .* is unreachable: connection refused/);
  } finally {
    await fetch(`${baseURL}/api/servers/gone`, { method: "DELETE" });
  }
});

test("the idle countdown uses the server's limit where known, else shows the idle time", async ({ page }) => {
  // `local`: the app's own host (15 min); `second`: a per-server setting (2 min, e2e config); `py`: unknown.
  await startOn(page, "local", "math", "train", 0);
  await expect(page.getByText("Expires if idle in")).toBeVisible();
  await expect(page.getByText(/^1[45]:\d\d$/)).toBeVisible();
  await startOn(page, "second", "math", "train", 0);
  await expect(page.getByText(/^[12]:\d\d$/)).toBeVisible();
  await startOn(page, "py", "farmplanner", "train", 0);
  await expect(page.getByText("Idle for (server's limit unknown)")).toBeVisible();
});

test("keep-alive pauses when nobody uses the tab, and resumes when asked", async ({ page }) => {
  await page.clock.install();
  await startOn(page, "local", "math", "train", 1);
  let pings = 0;
  page.on("request", (r) => {
    if (r.url().endsWith("/ping")) pings++;
  });
  await page.clock.runFor(30_000);
  await expect.poll(() => pings).toBeGreaterThanOrEqual(2);
  // Sixteen minutes without a key or a click: pinging stops (the server may then expire the session).
  await page.clock.runFor(16 * 60_000);
  await expect(page.getByRole("status").filter({ hasText: "Keep-alive paused" })).toBeVisible();
  const paused = pings;
  await page.clock.runFor(60_000);
  expect(pings).toBe(paused);
  await page.getByRole("button", { name: "Keep it alive" }).click();
  await page.clock.runFor(11_000);
  await expect.poll(() => pings).toBeGreaterThan(paused);
});

test("an ended episode reopens as its record, without errors", async ({ page }) => {
  await startOn(page, "local", "guess", "train", 0);
  await page.getByLabel("number").fill("50");
  await page.keyboard.press("Control+Enter");
  await expect(new EpisodePage(page).step(1, "guess").getByText("ok", { exact: true })).toBeVisible();
  await page.getByRole("button", { name: "End episode" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Episode closed" })).toBeVisible();
  await page.reload();
  await expect(new EpisodePage(page).step(1, "guess").getByText("ok", { exact: true })).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: "Episode closed" })).toBeVisible();
  // (Next keeps an empty route announcer with role alert on every page.)
  await expect(page.locator('[role="alert"]:not(#__next-route-announcer__)')).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Call guess" })).toHaveCount(0);
});

test("a task_spec the environment cannot use ends as an error with the environment's message", async ({
  page,
  baseURL,
}) => {
  await page.goto("/s/py/e/canvas/episode/new?spec=1");
  await (await hydrated(page.getByLabel("task_spec (JSON)"))).fill('{"id": "no-paper", "broken": true}');
  await page.getByRole("button", { name: "Start episode" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "The episode could not start" })).toContainText(
    "the paper tray is empty",
  );
  await expect
    .poll(async () => {
      const res = await fetch(`${baseURL}/api/trajectories?server=py&env=canvas&q=no-paper`);
      const { items } = (await res.json()) as {
        items: { end_reason: string | null; error: string | null }[];
      };
      return items[0] ? `${items[0].end_reason}: ${items[0].error}` : "";
    })
    .toMatch(/^error: setup failed: RuntimeError: no-paper: the paper tray is empty/);
});
