// UI e2e of runs (docs/runs.md), against the built-in host and the OpenAI-compatible model fixture
// as a real process (the app's endpoint `fixture`; models `oracle` solves math, `wrong` misses by
// one): start a run from an environment's page and watch it finish live; its results page (summary
// figures, histogram, a task cell opening its trajectory and back, exports); compare two runs (the
// tasks gained and lost); cancel and resume; the runs list and the model endpoints (never a key).
// Locators by role and label; no fixed sleeps.
import { expect, test } from "@playwright/test";
import { EnvironmentPage } from "./pages/environment";
import { MODEL_FIXTURE, modelDelay, RunPage, RunsPage, resetModelFixture } from "./pages/runs";
import { TrajectoriesPage } from "./pages/trajectory";
import { settled } from "./steps";

test.afterEach(resetModelFixture);

/** Starts a run through the API (what the UI posts), returning its id. */
async function startRun(baseURL: string, model: string, tasks: string, extra: Record<string, unknown> = {}) {
  const res = await fetch(`${baseURL}/api/runs`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      server: "local",
      env: "math",
      split: "test",
      tasks,
      policy: { kind: "model", endpoint: "fixture", model },
      ...extra,
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function waitDone(baseURL: string, id: string) {
  await expect
    .poll(
      async () => ((await (await fetch(`${baseURL}/api/runs/${id}`)).json()) as { status: string }).status,
      {
        timeout: 30_000,
      },
    )
    .toBe("done");
}

test("start a run from an environment's page, watch it live, read its results, open an episode and come back", async ({
  page,
}) => {
  const env = await EnvironmentPage.open(page, "local", "math");
  await env.startRunLink.click();
  await expect(page).toHaveURL(/\/runs\/new\?server=local&env=math/);
  await expect(page.getByRole("heading", { level: 1, name: "Start a run" })).toBeVisible();
  await expect(page.getByLabel("Environment")).toHaveValue("math");
  await page.getByLabel("Split").selectOption("test");
  await page.getByRole("radio", { name: "Range" }).check();
  await page.getByLabel("From task").fill("0");
  await page.getByLabel("To task (included)").fill("9");
  await page.getByLabel("Repeats").fill("2");
  await page.getByLabel("Concurrency").fill("2");
  await expect(page.getByRole("radio", { name: "Model" })).toBeChecked();
  await expect(page.getByLabel("Endpoint")).toHaveValue("fixture");
  // The endpoint's first listed model is offered; a mistake is named by its field, and nothing starts.
  await expect(page.getByRole("combobox", { name: "Model id" })).toHaveValue("oracle");
  await page.getByLabel("Model id").fill("");
  await page.getByRole("button", { name: "Start run" }).click();
  await expect(page.getByText("Give the model's id")).toBeVisible();
  await expect(page.getByLabel("Model id")).toBeFocused();
  await page.getByLabel("Model id").fill("oracle");
  await expect(page.getByRole("status", { name: "Episodes to play" })).toHaveText(
    "10 tasks × 2 = 20 episodes",
  );

  // Slow enough to be seen playing: progress comes live from the run's events.
  await modelDelay(400);
  await page.getByRole("button", { name: "Start run" }).click();
  await expect(page).toHaveURL(/\/runs\/[A-Za-z0-9_-]+$/);
  const runUrl = page.url();
  const id = new URL(runUrl).pathname.split("/").pop()!;
  const run = new RunPage(page);
  await expect(run.status("Running")).toBeVisible();
  await expect(page.getByRole("button", { name: "Cancel run" })).toBeVisible();
  const done = run.figure("Progress", "Done");
  const seen = new Set<string>();
  await expect
    .poll(
      async () => {
        seen.add((await done.textContent()) ?? "");
        return run.status("Done").count();
      },
      { timeout: 30_000, intervals: [100] },
    )
    .toBe(1);
  expect([...seen].some((v) => Number(v) > 0 && Number(v) < 20)).toBe(true);
  await expect(done).toHaveText("20");
  await expect(page.getByRole("progressbar", { name: "Episodes ended" })).toHaveAttribute(
    "aria-valuenow",
    "100",
  );

  // The summary.
  await expect(run.figure("Summary", "Success rate")).toHaveText("100%");
  await expect(run.figure("Summary", "Mean reward")).toHaveText("1");
  await expect(run.figure("Summary", "Tasks")).toHaveText("10");
  await expect(page.getByRole("list", { name: "pass@k" })).toHaveText(/pass@1\s*100%\s*pass@2\s*100%/);
  await expect(run.figure("Summary", "Tokens per episode")).toHaveText(/^\d+ in · \d+ out$/);
  await expect(run.figure("Summary", "Turns")).toHaveText("1 · 1 · 1 · 1");
  await expect(page.getByRole("figure", { name: "Reward histogram" })).toBeVisible();
  await page.getByText("As a table").click();
  await expect(page.getByRole("figure", { name: "Reward histogram" }).getByRole("row").last()).toHaveText(
    /^1\s*20$/,
  );
  await expect(page.getByText("No episode errored.")).toBeVisible();

  // Exports: chat JSONL and ATIF, one line per episode.
  const chat = await page.request.get(
    (await page.getByRole("link", { name: "Export chat JSONL" }).getAttribute("href"))!,
  );
  const lines = (await chat.text()).trim().split("\n");
  expect(lines).toHaveLength(20);
  expect(JSON.parse(lines[0]!)).toMatchObject({ reward: 1, env: "math", runId: id });
  const atif = await page.request.get(
    (await page.getByRole("link", { name: "Export ATIF" }).getAttribute("href"))!,
  );
  expect(JSON.parse((await atif.text()).split("\n")[0]!).schema_version).toMatch(/^ATIF-v1\./);

  // Its trajectories: the list of the run's 20 episodes only (other specs' episodes are in the
  // store too), saying whose they are.
  await page.getByRole("link", { name: "Its trajectories" }).click();
  await expect(page).toHaveURL(`/trajectories?run=${id}`);
  await expect(page.getByText("The episodes of run")).toContainText(id.slice(0, 8));
  await expect(page.getByText(/^20 trajectories$/)).toBeVisible();
  await expect(new TrajectoriesPage(page).items.first()).toContainText("math");
  await page.goBack();
  await expect(page).toHaveURL(runUrl);

  // A task cell opens its trajectory; the trajectory links back to the run, on that task.
  const table = page.getByRole("table", { name: "Tasks" });
  await expect(table.getByRole("row")).not.toHaveCount(0);
  await table.getByRole("link", { name: "Task 3, repeat 2: reward 1" }).click();
  await expect(page).toHaveURL(/\/trajectories\/[A-Za-z0-9_-]+$/);
  await expect(page.getByText("part of run")).toContainText(`run ${id.slice(0, 8)}, task 3, repeat 2`);
  await expect(page.getByRole("note", { name: "Chosen by model oracle, turn 1" })).toContainText(
    "the answer is",
  );
  await page.getByRole("link", { name: `run ${id.slice(0, 8)}` }).click();
  await expect(page).toHaveURL(`${runUrl}?task=3`);
  await expect(page.getByRole("row", { name: /^3\b/ })).toHaveClass(/bg-indigo-50/);
});

test("compare two runs: the tasks B gained, and lost once swapped", async ({ page, baseURL }) => {
  const a = await startRun(baseURL!, "wrong", "0-4");
  const b = await startRun(baseURL!, "oracle", "0-4");
  await waitDone(baseURL!, a);
  await waitDone(baseURL!, b);

  const list = await RunsPage.open(page);
  await list.selectToCompare(a).check();
  await list.selectToCompare(b).check();
  await page.getByRole("link", { name: "Compare selected" }).click();
  await expect(page).toHaveURL(`/runs/compare?a=${a}&b=${b}`);
  const gained = page.getByRole("list", { name: "Gained (5)" });
  await expect(gained.getByRole("link")).toHaveText(["0", "1", "2", "3", "4"]);
  await expect(page.getByRole("heading", { name: "Lost (0)" })).toBeVisible();
  await expect(page.getByText("Mean difference").locator("xpath=following-sibling::dd[1]")).toHaveText("+1");
  const table = page.getByRole("table", { name: "Tasks" });
  await expect(table.getByRole("row", { name: /^2\b/ })).toContainText("gained");
  await expect(table.getByRole("row", { name: /^2\b/ })).toContainText("+1");
  // The table's filter: no task was lost, all five were gained.
  await page.getByLabel("Show").selectOption("lost");
  await expect(page.getByText(/^0 tasks$/)).toBeVisible();
  await page.getByLabel("Show").selectOption("gained");
  await expect(page.getByText(/^5 tasks$/)).toBeVisible();

  await page.getByRole("button", { name: "Swap A and B" }).click();
  await expect(page).toHaveURL(`/runs/compare?a=${b}&b=${a}`);
  await expect(page.getByRole("list", { name: "Lost (5)" }).getByRole("link")).toHaveCount(5);
  await expect(page.getByRole("heading", { name: "Gained (0)" })).toBeVisible();
  await expect(page.getByText("Mean difference").locator("xpath=following-sibling::dd[1]")).toHaveText("-1");
});

test("cancel a run, then resume it: only the missing episodes are played", async ({ page, baseURL }) => {
  await modelDelay(500);
  const id = await startRun(baseURL!, "oracle", "0-19", { concurrency: 1 });
  const run = await RunPage.open(page, id);
  await expect(run.status("Running")).toBeVisible();
  const done = run.figure("Progress", "Done");
  await expect
    .poll(async () => Number(await done.textContent()), { timeout: 20_000 })
    .toBeGreaterThanOrEqual(2);
  await page.getByRole("button", { name: "Cancel run" }).click();
  await expect(run.status("Cancelled")).toBeVisible();
  await expect(page.getByRole("button", { name: "Cancel run" })).toHaveCount(0);
  const played = Number(await done.textContent());
  expect(played).toBeLessThan(20);
  await expect(run.figure("Progress", "To play")).toHaveText(String(20 - played));

  await modelDelay(0);
  await page.getByRole("button", { name: "Resume" }).click();
  await expect(run.status("Done")).toBeVisible({ timeout: 30_000 });
  await expect(done).toHaveText("20");
  await expect(run.figure("Summary", "Success rate")).toHaveText("100%");
  await expect(page.getByRole("button", { name: "Resume" })).toHaveCount(0);
  // Every task was played to its end, and the tasks done before the cancel were not played again
  // (the one in flight at the cancel may have finished on the server as well: it is played again,
  // as the run never got its result).
  const r = (await (await fetch(`${baseURL}/api/trajectories?run=${id}&limit=100`)).json()) as {
    items: { end_reason: string | null; run: { task_index: number } | null }[];
  };
  const finished = new Map<number, number>();
  for (const t of r.items)
    if (t.end_reason === "finished" && t.run)
      finished.set(t.run.task_index, (finished.get(t.run.task_index) ?? 0) + 1);
  expect(finished.size).toBe(20);
  for (let task = 0; task < played; task++) expect(finished.get(task)).toBe(1);
  expect(r.items.filter((t) => t.end_reason === "finished").length).toBeLessThanOrEqual(21);
});

test("the runs list shows each run's figures, and the model endpoints without their keys", async ({
  page,
  baseURL,
}) => {
  const id = await startRun(baseURL!, "wrong", "0-1");
  await waitDone(baseURL!, id);
  const list = await RunsPage.open(page);
  const row = list.row(id);
  await expect(row).toContainText("Done");
  await expect(row).toContainText("local / math / test");
  await expect(row).toContainText("model wrong at fixture");
  await expect(row).toContainText("2/2");
  await expect(row).toContainText("0%");
  const models = list.modelEndpoints;
  await expect(models.getByRole("row", { name: /fixture/ })).toContainText(`${MODEL_FIXTURE}/v1`);
  await expect(models.getByRole("row", { name: /fixture/ })).toContainText("set");
  await expect(page.locator("body")).not.toContainText("e2e-fixture-key");
  await page.getByLabel("Status", { exact: true }).selectOption("failed");
  await expect(page.getByText("No failed runs.")).toBeVisible();
});

test("a run's page names its own server in the picker; an unknown run is a real 404", async ({
  page,
  baseURL,
}) => {
  const id = await startRun(baseURL!, "oracle", "0-1", { server: "second" });
  await waitDone(baseURL!, id);
  await page.goto(`/runs/${id}`);
  await expect(page.getByRole("button", { name: "Server: second. Switch server" })).toBeVisible();
  // Elsewhere the default stays.
  await page.goto("/runs");
  await expect(page.getByRole("button", { name: "Server: local. Switch server" })).toBeVisible();

  const res = await page.goto("/runs/no-such-run");
  expect(res?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Run not found" })).toBeVisible();
});

test("a new run without an environment asks for no splits and shows no error until one is chosen", async ({
  page,
}) => {
  const splitRequests: string[] = [];
  page.on("request", (r) => {
    if (/\/splits(\?|$)/.test(new URL(r.url()).pathname)) splitRequests.push(r.url());
  });
  await page.goto("/runs/new?server=local");
  const environment = page.getByLabel("Environment");
  await expect(environment.getByRole("option", { name: "math" })).toBeAttached();
  await settled(page);
  await expect(page.getByLabel("Split")).toBeDisabled();
  await expect(page.getByLabel("Split")).not.toHaveAttribute("aria-invalid", "true");
  await expect(page.getByRole("alert").filter({ hasText: /split/i })).toHaveCount(0);
  expect(splitRequests).toEqual([]);
  // Once chosen, its splits are asked for and offered.
  await environment.selectOption("math");
  await expect(page.getByLabel("Split").getByRole("option", { name: "test" })).toBeAttached();
  expect(splitRequests).toHaveLength(1);
});
