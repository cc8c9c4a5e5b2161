// Trajectories end to end (Chromium): episodes driven by a plain ORS client through the relay are
// recorded, watched live, kept across a reload and a server restart; fork flags the
// non-deterministic `dice` steps; replay shows what changed in an environment; compare; export →
// import round trip.
import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { TrajectoryPage } from "./pages/trajectory";
import { downloadBy, jsonlOf } from "./steps";
import {
  openedSession,
  relayClient,
  relaySession,
  startNext,
  startVariantServer,
  tempDataDir,
  trajectoryOf,
} from "./trajectories-helpers";

const RESTART_PORT = Number(process.env.E2E_TRAJ_RESTART_PORT ?? 8560);

test("an episode run by an outside client is watched live, and kept after a reload", async ({
  page,
  baseURL,
}) => {
  const { ors, sid, call } = await relaySession(baseURL!, "local", "dice", { split: "train", index: 0 });
  const t = await trajectoryOf(baseURL!, "local", sid);

  await page.goto("/live");
  await page
    .getByRole("listitem")
    .filter({ hasText: sid })
    .getByRole("link", { name: "dice · train/0" })
    .click();
  await expect(page).toHaveURL(new RegExp(`/trajectories/${t.id}`));
  await expect(page.getByLabel("End reason: Running")).toBeVisible();

  // Steps appear as the outside client makes them, without a reload.
  await call("echo", { text: "live one" });
  await expect(new TrajectoryPage(page).steps).toHaveCount(1);
  await expect(page.getByText("echo: live one")).toBeVisible();
  await call("stop", {});
  await expect(new TrajectoryPage(page).steps).toHaveCount(2);
  await expect(page.getByLabel("End reason: Finished")).toBeVisible();
  await ors.delete(sid);

  await page.reload();
  await expect(new TrajectoryPage(page).steps).toHaveCount(2);
  await expect(page.getByLabel("End reason: Finished")).toBeVisible();
  await expect(page.getByTestId("total-reward")).toHaveText("0");

  // Deep link to a step, then j/k.
  await page.goto(`/trajectories/${t.id}?step=1`);
  await expect(page.getByRole("heading", { name: "Step 1: echo" })).toBeVisible();
  await page.keyboard.press("j");
  await expect(page.getByRole("heading", { name: "Step 2: stop" })).toBeVisible();
  await expect(page).toHaveURL(/step=2/);
  await page.keyboard.press("k");
  await expect(page.getByRole("heading", { name: "Step 1: echo" })).toBeVisible();
  await expect(page.getByRole("img", { name: /Reward per step chart: 2 steps/ })).toBeVisible();

  // It is in the list, found by search.
  await page.goto(`/trajectories?q=${sid}`);
  await expect(page.getByRole("list", { name: "Trajectories" }).getByRole("listitem")).toHaveCount(1);
});

test("a second tab sees an in-flight call's frames, then its result", async ({ page, baseURL }) => {
  const ors = relayClient(baseURL!, "local");
  const { sid } = await ors.createSession();
  await ors.create(sid, { env_name: "slow", split: "train", index: 0 });
  const t = await trajectoryOf(baseURL!, "local", sid);
  await page.goto(`/trajectories/${t.id}`);
  await expect(page.getByLabel("End reason: Running")).toBeVisible();
  const call = ors.callTool("slow", sid, { name: "wait", input: { seconds: 3 } });
  // The step shows while the call runs, with the task_id frame already there.
  await expect(page.getByRole("heading", { name: "Step 1: wait" })).toBeVisible();
  await expect(page.getByText("Waiting for the result…")).toBeVisible();
  await expect(page.getByText(/SSE frames \([1-9]\d*\)/)).toBeVisible();
  await call;
  await expect(page.getByText(/Waited 3\.\d s\./)).toBeVisible();
  await ors.delete(sid);
  await expect(page.getByLabel("End reason: Closed by user")).toBeVisible();
});

test("recorded steps survive a server restart", async ({ page }) => {
  const dataDir = tempDataDir();
  let app = await startNext(RESTART_PORT, dataDir);
  try {
    const { sid, call } = await relaySession(app.base, "local", "dice", { split: "train", index: 0 });
    await call("echo", { text: "before the restart" });
    const t = await trajectoryOf(app.base, "local", sid, 1);
    await page.goto(`${app.base}/trajectories/${t.id}?step=1`);
    await expect(page.getByText("echo: before the restart")).toBeVisible();

    await app.stop();
    app = await startNext(RESTART_PORT, dataDir);
    await page.reload();
    await expect(page.getByRole("heading", { name: "Step 1: echo" })).toBeVisible();
    await expect(page.getByText("echo: before the restart")).toBeVisible();
    // The built-in host's session died with the process: the episode says so.
    await expect(page.getByLabel("End reason: Error")).toBeVisible();
    await expect(page.getByText(/built-in host lost the session/)).toBeVisible();
  } finally {
    await app.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test("fork at a step of a dice episode flags the non-deterministic steps", async ({ page, baseURL }) => {
  const { call, close } = await relaySession(baseURL!, "local", "dice", { split: "train", index: 1 });
  await call("roll", { sides: 1000 });
  await call("echo", { text: "same every time" });
  await call("roll", { sides: 1000 });
  const t = await close(3);

  await page.goto(`/trajectories/${t.id}?step=2`);
  await page.getByRole("button", { name: "Fork at step 2" }).click();
  const result = page.getByRole("status", { name: "Fork result" });
  await expect(result).toContainText("Replayed steps that differ from the original: 1.");
  const cont = result.getByRole("link", { name: "Continue in the episode view" });
  await expect(cont).toHaveAttribute("href", /^\/s\/local\/e\/dice\/episode\/[^/]+$/);
  const forkSid = (await cont.getAttribute("href"))!.split("/").pop()!;

  await result.getByRole("link", { name: "View the fork" }).click();
  await expect(page.getByText(/fork of/)).toBeVisible();
  await expect(new TrajectoryPage(page).steps).toHaveCount(2);
  await new TrajectoryPage(page).steps.first().click();
  await expect(page.getByText(/differs from original: observation, reward/)).toBeVisible();
  await page.keyboard.press("j");
  await expect(page.getByText("replayed, same")).toBeVisible();
  // The forked session is live: it continues by hand (here: by the client) and is recorded.
  await relayClient(baseURL!, "local").callTool("dice", forkSid, { name: "stop", input: {} });
  await expect(new TrajectoryPage(page).steps).toHaveCount(3);
});

test("replay against a changed environment shows a step-aligned diff", async ({ page, baseURL }) => {
  const variant = await startVariantServer();
  const name = "variant";
  await fetch(`${baseURL}/api/servers/${name}`, { method: "DELETE" });
  const added = await fetch(`${baseURL}/api/servers`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ name, url: variant.url }),
  });
  expect(added.status, await added.clone().text()).toBeLessThan(300);
  try {
    const { sid, call } = await relaySession(baseURL!, name, "variant", { split: "train", index: 0 });
    await call("say", { text: "hello" });
    await call("stop", {});
    const t = await trajectoryOf(baseURL!, name, sid, 2);
    expect(t.end_reason).toBe("finished");

    variant.behaviour.version = "b"; // the environment changes
    await page.goto(`/trajectories/${t.id}`);
    await page.getByRole("button", { name: "Replay and diff" }).click();
    await expect(page).toHaveURL(/\/trajectories\/compare\?a=.+&b=.+/);
    await expect(page.getByRole("heading", { name: "Replay diff" })).toBeVisible();
    await expect(page.getByRole("status", { name: "Diff summary" })).toHaveText(
      /1 of 2 steps differ; first difference at step 1\./,
    );
    const left = page.getByRole("region", { name: "Step 1 left" });
    const right = page.getByRole("region", { name: "Step 1 right" });
    await expect(left).toContainText("differs: observation, reward");
    await expect(left.locator("mark")).toHaveText("hello");
    await expect(right.locator("mark")).toHaveText("HELLO!");
    await expect(page.getByRole("region", { name: "Step 2 right" })).not.toContainText("differs");
  } finally {
    await fetch(`${baseURL}/api/servers/${name}`, { method: "DELETE" });
    await variant.close();
  }
});

test("compare two trajectories side by side", async ({ page, baseURL }) => {
  const ors = relayClient(baseURL!, "local");
  const token = `cmp${Date.now()}`;
  const ids: string[] = [];
  for (const answer of ["1", "2"]) {
    const { sid } = await ors.createSession();
    await ors.create(sid, { env_name: "dice", split: "train", index: 0 });
    await ors.callTool("dice", sid, { name: "echo", input: { text: `${token} answer ${answer}` } });
    await ors.callTool("dice", sid, { name: "stop", input: {} });
    ids.push((await trajectoryOf(baseURL!, "local", sid, 2)).id);
  }
  // Found by search in the list, both selected, compared.
  await page.goto("/trajectories");
  await page.getByLabel("Search").fill(token);
  const rows = page.getByRole("list", { name: "Trajectories" }).getByRole("listitem");
  await expect(rows).toHaveCount(2);
  await page.getByRole("checkbox", { name: `Select ${ids[0]} for compare` }).check();
  await page.getByRole("checkbox", { name: `Select ${ids[1]} for compare` }).check();
  await page.getByRole("link", { name: "Compare selected" }).click();
  await expect(page.getByRole("heading", { name: "Compare trajectories" })).toBeVisible();
  await expect(page.getByRole("status", { name: "Diff summary" })).toHaveText(
    /1 of 2 steps differ; first difference at step 1\./,
  );
  // A is the first one checked.
  await expect(page.getByRole("region", { name: "Step 1 left" })).toContainText(
    "differs: input, observation",
  );
  await expect(page.getByRole("region", { name: "Step 1 left" }).locator("mark")).toHaveText("1");
  await expect(page.getByRole("region", { name: "Step 1 right" }).locator("mark")).toHaveText("2");
  await expect(page.getByRole("region", { name: "Step 2 right" })).not.toContainText("differs");

  // The same from a trajectory page, by id.
  await page.goto(`/trajectories/${ids[0]}`);
  await page.getByLabel("Compare with trajectory id").fill(ids[1]);
  await page.getByRole("button", { name: "Compare" }).click();
  await expect(page).toHaveURL(new RegExp(`compare\\?a=${ids[0]}&b=${ids[1]}`));
  await expect(page.getByRole("region", { name: "Step 1 right" }).locator("mark")).toHaveText("2");
});

test("export as JSON and JSONL, import back; a bad file imports nothing", async ({ page, baseURL }) => {
  const { ors, sid, call } = await relaySession(baseURL!, "local", "dice", { split: "train", index: 1 });
  await call("echo", { text: "round trip" });
  await ors.delete(sid);
  const t = await trajectoryOf(baseURL!, "local", sid, 1);

  await page.goto(`/trajectories/${t.id}`);
  const download = await downloadBy(page.getByRole("link", { name: "Export JSON" }));
  const exported = JSON.parse(fs.readFileSync((await download.path())!, "utf8"));
  expect(exported).toMatchObject({ format: "ors-trajectory/1", id: t.id, end_reason: "user_closed" });
  expect(JSON.stringify(exported)).not.toMatch(/secrets/i);

  // Delete it, then import the file back through the file picker.
  expect((await fetch(`${baseURL}/api/trajectories/${t.id}`, { method: "DELETE" })).status).toBe(200);
  await page.goto("/trajectories");
  const picker = page.getByLabel("Import trajectories (JSON or JSONL)");
  await picker.setInputFiles({
    name: "one.json",
    mimeType: "application/json",
    buffer: Buffer.from(JSON.stringify(exported)),
  });
  await expect(page.getByRole("status").filter({ hasText: "Imported 1 trajectory" })).toBeVisible();
  const back = await (await fetch(`${baseURL}/api/trajectories/${t.id}`)).json();
  expect({ ...back, origin: undefined }).toEqual({ ...exported, origin: undefined });

  // JSONL export of a filtered list, re-imported: everything already there is skipped.
  await page.goto(`/trajectories?q=${t.id}`);
  const jsonl = await downloadBy(page.getByRole("link", { name: "Export JSONL" }));
  expect((await jsonlOf(jsonl)).map((l) => l.id)).toEqual([t.id]);
  await picker.setInputFiles({
    name: "many.jsonl",
    mimeType: "application/x-ndjson",
    buffer: fs.readFileSync((await jsonl.path())!),
  });
  await expect(page.getByRole("status").filter({ hasText: "skipped 1 already present" })).toBeVisible();

  // A bad line anywhere: nothing imported, the line named.
  const fresh = { ...exported, id: `new-${Date.now()}` };
  const bad = `${JSON.stringify(fresh)}\n{"format":"ors-trajectory/1","id":"x"}\n`;
  await picker.setInputFiles({
    name: "bad.jsonl",
    mimeType: "application/x-ndjson",
    buffer: Buffer.from(bad),
  });
  const alert = page.getByRole("alert").filter({ hasText: "Nothing was imported from bad.jsonl" });
  await expect(alert).toContainText("line 2:");
  expect((await fetch(`${baseURL}/api/trajectories/${fresh.id}`)).status).toBe(404);

  // Dropping a file on the import area works the same way.
  const dataTransfer = await page.evaluateHandle(
    (text) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], "dropped.jsonl", { type: "application/x-ndjson" }));
      return dt;
    },
    `${JSON.stringify(fresh)}\n`,
  );
  await page.getByRole("region", { name: "Import trajectories" }).dispatchEvent("drop", { dataTransfer });
  await expect(page.getByRole("status").filter({ hasText: "Imported 1 trajectory" })).toContainText(
    "dropped.jsonl",
  );
  expect((await fetch(`${baseURL}/api/trajectories/${fresh.id}`)).status).toBe(200);
});

test("a call after the episode finished: marked in the chart, not counted, and not offered for a fork", async ({
  page,
  baseURL,
}) => {
  const { call, close } = await relaySession(baseURL!, "local", "dice", { split: "train", index: 0 });
  await call("echo", { text: "one" });
  await call("stop", {});
  // An outside client calls on after `finished: true`: kept, marked after the end.
  await call("echo", { text: "too late" });
  const t = await close(3);
  expect(t.steps[2]!.after_end).toBe(true);

  await page.goto(`/trajectories/${t.id}?step=3`);
  const chart = page.getByRole("img", { name: /^Reward per step chart/ });
  await expect(chart).toHaveAttribute(
    "aria-label",
    /step 3 was called after the episode finished and does not count/,
  );
  await expect(page.getByText("after the end (not counted)")).toBeVisible();
  await expect(chart.locator("g[data-after-end]")).toHaveCount(1);
  await expect(new TrajectoryPage(page).steps.nth(2)).toContainText("(after end)");
  // Not offered at a step after the end, with the reason; offered (and working) at the last step.
  const fork = page.getByRole("button", { name: /^Fork at step/ });
  await expect(fork).toHaveText("Fork at step 3");
  await expect(fork).toBeDisabled();
  await expect(page.getByText(/Step 3 was called after the episode had finished/)).toBeVisible();
  await page.keyboard.press("k");
  await expect(page.getByRole("button", { name: "Fork at step 2" })).toBeEnabled();
  await page.getByRole("button", { name: "Fork at step 2" }).click();
  await expect(page.getByRole("status", { name: "Fork result" })).toContainText("Forked at step 2");
});

test("a trajectory's page names its own server in the picker; an unknown one is a real 404", async ({
  page,
  baseURL,
}) => {
  const { close } = await relaySession(baseURL!, "second", "math", { split: "test", index: 1 });
  const t = await close();

  await page.goto(`/trajectories/${t.id}`);
  await expect(page.getByRole("button", { name: "Server: second. Switch server" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Environments" })).toHaveAttribute("href", "/s/second");
  // Elsewhere the default stays.
  await page.goto("/trajectories");
  await expect(page.getByRole("button", { name: "Server: local. Switch server" })).toBeVisible();

  const res = await page.goto("/trajectories/no-such-trajectory");
  expect(res?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
});

test("a finished step's tool name shows whole beside its badge; an episode ended with no step says so", async ({
  page,
  baseURL,
}) => {
  const { ors, call, close } = await relaySession(baseURL!, "local", "math", { split: "train", index: 0 });
  await call("submit", { answer: "no" });
  const done = await close(1);
  await page.goto(`/trajectories/${done.id}`);
  const row = new TrajectoryPage(page).steps.first();
  await expect(row).toContainText("finished");
  const name = row.getByTestId("step-tool");
  await expect(name).toHaveText("submit");
  // Not cut: the name's text fits its box.
  expect(await name.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);

  // Ended before any call: no "yet", on the trajectory page and on the episode's own page.
  const empty = await openedSession(ors, "math", { split: "train", index: 1 });
  await ors.delete(empty);
  const ended = await trajectoryOf(baseURL!, "local", empty);
  await expect.poll(async () => (await trajectoryOf(baseURL!, "local", empty)).end_reason).not.toBeNull();
  await page.goto(`/trajectories/${ended.id}`);
  await expect(page.getByText("No steps: the episode ended without a call.").first()).toBeVisible();
  await expect(page.getByText(/No steps yet/)).toHaveCount(0);
  await page.goto(`/s/local/e/math/episode/${encodeURIComponent(empty)}`);
  await expect(page.getByText("No steps: the episode ended without a call.")).toBeVisible();
  await expect(page.getByText(/No steps yet/)).toHaveCount(0);
});
