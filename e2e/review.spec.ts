// e2e of review and baselines (docs/review.md) against the production build: two reviewers in two
// browser contexts labelling the same episodes, the agreement report against a hand computation; a
// reviewer who never touches the mouse; a share link played to its end in a context without the
// access token while every other route answers 403, then revoked; a leaderboard beside the runs' own
// figures; the run report opened from file:// with the network blocked.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type Browser, type BrowserContext, expect, test } from "@playwright/test";
import { AgreementPage, api, mathAnswer, oracleRun, PlayPage, ReviewQueuePage } from "./pages/review";

// Each test plays and labels dozens of episodes: longer than the suite's default minute on a busy machine.
test.describe.configure({ timeout: 240_000 });

const SCHEMA = {
  type: "object",
  properties: {
    correct: { type: "boolean", title: "correct" },
    failure: { type: "string", enum: ["none", "arithmetic"] },
    note: { type: "string" },
  },
  required: ["correct"],
};

/** A label set and a queue of all ten episodes of an oracle run, for these reviewers (through the API). */
async function queueFor(base: string, reviewers: string[], tasks: string, perEpisode = reviewers.length) {
  const run = await oracleRun(base, "train", tasks);
  const set = await api<{ id: string }>(base, "POST", "/api/review/label-sets", {
    server: "local",
    env: "math",
    name: `verdict ${reviewers.join(" ")}`,
    schema: SCHEMA,
  });
  const q = await api<{ id: string }>(base, "POST", "/api/review/queues", {
    labelSet: set.id,
    run,
    size: 10,
    reviewers,
    perEpisode,
  });
  return { run, queue: q.id };
}

test("two reviewers in two browsers label the same episodes; the agreement report shows the κ and the confusion matrix computed by hand", async ({
  browser,
  baseURL,
}) => {
  const { queue } = await queueFor(baseURL!, ["ann", "bob"], "200-209");
  // task:      200 201 202 203 204 205 206 207 208 209
  // verifier:   F   T   T   T   T   F   T   T   T   T   (the oracle misses multiples of 5)
  // ann:        F   T   T   T   T   T   T   T   F   F
  // bob:        T   T   T   T   T   T   T   F   F   F
  const ann = (t: number) => ![200, 208, 209].includes(t);
  const bob = (t: number) => ![207, 208, 209].includes(t);
  const label = async (context: BrowserContext, who: string, verdict: (t: number) => boolean) => {
    const page = await context.newPage();
    const r = await ReviewQueuePage.open(page, queue, who);
    await expect(page.getByText("rewards hidden until you label")).toBeVisible();
    for (let i = 1; i <= 10; i++) {
      await expect(r.position).toHaveText(`Episode ${i} of 10`);
      const t = await r.taskIndex();
      await r.choice(verdict(t) ? "correct: yes" : "correct: no").click();
      await page.getByRole("button", { name: "Save label and next" }).click();
      if (i < 10) await expect(r.position).toHaveText(`Episode ${i + 1} of 10`);
    }
    await expect(r.progress).toHaveText("10 of 10 labelled");
    await expect(page.getByRole("status")).toContainText("Every episode of yours is labelled");
  };
  const a = await browser.newContext();
  const b = await browser.newContext();
  await Promise.all([label(a, "ann", ann), label(b, "bob", bob)]);

  const page = await a.newPage();
  const report = await AgreementPage.open(page, queue);
  // Majorities: 200 and 207 split (disputed). TP 201-204, 206; FP 208, 209; FN 205; TN none.
  await expect(report.cell("true positives")).toHaveText("5");
  await expect(report.cell("false positives")).toHaveText("2");
  await expect(report.cell("false negatives")).toHaveText("1");
  await expect(report.cell("true negatives")).toHaveText("0");
  // FP rate 2 / (2 + 0); FN rate 1 / (1 + 5).
  await expect(page.getByTestId("fp-rate")).toContainText("100.0% (2 of 2)");
  await expect(page.getByTestId("fn-rate")).toContainText("16.7% (1 of 6)");
  // κ: agree on 8 of 10; each says correct 7 times: pe = 0.7² + 0.3² = 0.58; κ = 0.22 / 0.42.
  await expect(page.getByTestId("kappa-ann-bob")).toHaveText((0.22 / 0.42).toFixed(3));
  // The episodes behind a cell, one click away.
  await report.cell("false positives").click();
  const fps = page.getByRole("region", { name: "The false positives" }).getByRole("listitem");
  await expect(fps).toHaveCount(2);
  await expect(fps.first()).toContainText("ann: incorrect");
  await page.getByRole("button", { name: /golden episodes$/ }).click();
  await expect(page.getByRole("status")).toContainText("Golden: fp-");
  await a.close();
  await b.close();
});

test("a reviewer labels a whole queue from the keyboard alone", async ({ page, baseURL }) => {
  const { queue } = await queueFor(baseURL!, ["kim"], "300-309");
  const r = await ReviewQueuePage.open(page, queue, "kim");
  await expect(r.position).toHaveText("Episode 1 of 10");
  // j/k walk the steps (each episode of math has one).
  await page.keyboard.press("j");
  await expect(r.step(1).locator("xpath=..")).toHaveAttribute("aria-current", "step");
  await page.keyboard.press("k");
  // n/p move between episodes without labelling.
  await page.keyboard.press("n");
  await expect(r.position).toHaveText("Episode 2 of 10");
  await page.keyboard.press("p");
  await expect(r.position).toHaveText("Episode 1 of 10");
  for (let i = 1; i <= 10; i++) {
    const t = await r.taskIndex();
    // 1: correct yes, 2: correct no; 3/4: failure none/arithmetic.
    await page.keyboard.press(t % 5 === 0 ? "2" : "1");
    await page.keyboard.press(t % 5 === 0 ? "4" : "3");
    await expect(r.choice(t % 5 === 0 ? "correct: no" : "correct: yes")).toHaveAttribute(
      "aria-pressed",
      "true",
    );
    // A note typed in its field: keys there are text, Escape leaves the field.
    if (i === 1) {
      await page.keyboard.press("Tab");
      await page.getByLabel("note").focus();
      await page.keyboard.type("n1 j");
      await expect(page.getByLabel("note")).toHaveValue("n1 j");
      await page.keyboard.press("Escape");
    }
    await page.keyboard.press("Enter");
    if (i < 10) await expect(r.position).toHaveText(`Episode ${i + 1} of 10`);
  }
  await expect(r.progress).toHaveText("10 of 10 labelled");
  // Labelled, the reward shows; the label is kept (p back to the first one).
  for (let i = 10; i > 1; i--) {
    await expect(r.position).toHaveText(`Episode ${i} of 10`);
    await page.keyboard.press("p");
  }
  await expect(r.position).toHaveText("Episode 1 of 10");
  await expect(page.getByTestId("review-total-reward")).toBeVisible();
  await expect(page.getByLabel("note")).toHaveValue("n1 j");
  const labels = await api<{ items: { value: { correct: boolean; failure: string } }[] }>(
    baseURL!,
    "GET",
    `/api/review/labels?queue=${queue}`,
  );
  expect(labels.items).toHaveLength(10);
  expect(labels.items.filter((l) => !l.value.correct && l.value.failure === "arithmetic")).toHaveLength(2);
});

/** A browser that has never had the access token. */
const stranger = (browser: Browser) => browser.newContext({ storageState: { cookies: [], origins: [] } });

test("a share link: three tasks played without the access token while every other route answers 403, then revoked", async ({
  browser,
  page,
  baseURL,
}) => {
  const base = baseURL!;
  // Made from the review page.
  await page.goto("/review");
  await page.getByText("New share link").click();
  const form = page.getByRole("form", { name: "New share link" });
  await form.getByLabel("Environment").fill("math");
  await form.getByLabel("Split").fill("test");
  await form.getByLabel("Tasks").fill("10,11,15");
  const note = `e2e baseline ${Date.now()}`;
  await form.getByLabel("Note (only you see it)").fill(note);
  await form.getByRole("button", { name: "Create share link" }).click();
  const link = page.getByRole("listitem").filter({ hasText: note }).getByTestId("share-url");
  await expect(link).toContainText("/play/");
  const url = (await link.textContent())!;
  const token = url.split("/play/")[1]!;

  const player = await stranger(browser);
  const p = await player.newPage();
  await p.goto(url);
  const play = new PlayPage(p);
  await play.name.fill("Ada");
  await p.getByRole("button", { name: "Start playing" }).click();
  await p.getByRole("button", { name: "Play the first task" }).click();
  // Task 10 right, 11 right, 15 wrong.
  for (const [i, task, right] of [
    [1, 10, true],
    [2, 11, true],
    [3, 15, false],
  ] as const) {
    await expect(play.task(i, 3)).toBeVisible();
    await expect(p.getByRole("region", { name: "Prompt" })).toContainText("What is");
    await play.answer(right ? await mathAnswer(base, "test", task) : "-1");
    await expect(
      p.getByRole("article", { name: "Step 1: submit" }).getByText(right ? /^Correct!$/ : /^Incorrect\./),
    ).toBeVisible();
    await p.getByRole("button", { name: i < 3 ? "Next task" : "Finish" }).click();
  }
  await expect(p.getByRole("heading", { name: "All 3 tasks played. Thank you, Ada!" })).toBeVisible();

  // Everything else refuses the player: pages and APIs, 403.
  for (const target of [
    "/",
    "/trajectories",
    "/runs",
    "/review",
    "/leaderboards",
    "/s/local/e/math",
    "/live",
  ]) {
    const res = await p.goto(target);
    expect(res?.status(), target).toBe(403);
  }
  for (const [method, target] of [
    ["GET", "/api/trajectories"],
    ["GET", "/api/runs"],
    ["GET", "/api/servers"],
    ["GET", "/api/shares"],
    ["GET", "/api/review/queues"],
    ["GET", `/api/leaderboards/local/math/test`],
    ["POST", "/api/servers/local/create_session"],
    ["GET", "/api/ors/../trajectories"],
  ] as const) {
    const res = await player.request.fetch(`${base}${target}`, { method });
    expect(res.status(), target).toBe(403);
  }
  // The run of the player, as the playground records it.
  const shares = await api<{
    items: { token: string; players: { player: string; runId: string; played: number }[] }[];
  }>(base, "GET", "/api/shares");
  const mine = shares.items.find((s) => s.token === token)!;
  expect(mine.players).toEqual([expect.objectContaining({ player: "Ada", played: 3 })]);
  const run = await api<Record<string, unknown>>(base, "GET", `/api/runs/${mine.players[0]!.runId}`);
  expect(run).toMatchObject({
    status: "done",
    policy: { kind: "human", player: "Ada" },
    policyLabel: "human Ada",
    completed: 3,
    successRate: 2 / 3,
  });

  // Revoked from the review page: the link opens nothing any more.
  await page.reload();
  const row = page.getByRole("listitem").filter({ hasText: note });
  await row.getByRole("button", { name: "Revoke" }).click();
  await expect(row.getByText("revoked")).toBeVisible();
  await p.goto(url);
  await expect(p.getByRole("heading", { name: "This link opens nothing" })).toBeVisible();
  await expect(p.getByText("this share link was revoked.")).toBeVisible();
  expect((await player.request.get(`${base}/api/play/${token}`)).status()).toBe(410);
  await player.close();
});

test("a leaderboard shows each run's own figures, sorts, and its run report opens from file:// with the network blocked", async ({
  browser,
  page,
  baseURL,
}) => {
  const base = baseURL!;
  const split = "test";
  const oracle = await oracleRun(base, split, "40-49");
  const own = await api<{ successRate: number; meanReward: number; completed: number }>(
    base,
    "GET",
    `/api/runs/${oracle}`,
  );
  await page.goto(`/leaderboards/local/math/${split}`);
  const table = page.getByRole("table", { name: `Leaderboard of math / ${split}` });
  const row = table.getByRole("row").filter({ has: page.getByRole("link", { name: oracle }) });
  await expect(row).toContainText(`${(own.successRate * 100).toFixed(1)}%`);
  await expect(row.getByRole("cell").nth(1)).toHaveText(String(own.completed));
  await table.getByRole("button", { name: "Mean reward" }).click();
  await expect(table.getByRole("columnheader", { name: "Mean reward" })).toHaveAttribute(
    "aria-sort",
    "descending",
  );

  // The run's report: a file, read offline.
  const res = await fetch(`${base}/api/runs/${oracle}/report`);
  expect(res.headers.get("content-disposition")).toMatch(/^attachment/);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "report-")), "report.html");
  fs.writeFileSync(file, await res.text());
  const offline = await stranger(browser);
  await offline.setOffline(true);
  const requests: string[] = [];
  await offline.route(/^https?:/, (route) => {
    requests.push(route.request().url());
    return route.abort();
  });
  const doc = await offline.newPage();
  doc.on("request", (r) => {
    if (!r.url().startsWith("file:")) requests.push(r.url());
  });
  await doc.goto(`file://${file}`);
  await expect(doc.getByRole("heading", { level: 1 })).toContainText(`Run ${oracle}`);
  await expect(doc.getByRole("heading", { name: "Tasks, worst first" })).toBeVisible();
  await expect(doc.getByRole("img", { name: /Rewards of 10 completed episodes/ })).toBeVisible();
  // Its style applies under its own CSP (the hash matches): the tables are laid out as the file says.
  expect(
    await doc
      .locator("table")
      .first()
      .evaluate((t) => getComputedStyle(t).borderCollapse),
  ).toBe("collapse");
  expect(await doc.evaluate(() => document.scripts.length)).toBe(0);
  await expect(doc.getByRole("link", { name: oracle })).toHaveAttribute("href", `${base}/runs/${oracle}`);
  expect(requests).toEqual([]);
  await offline.close();
});
