// Protocol log e2e: the episode page's log of every request of its session through the relay, on
// real episodes (the built-in host and the reference-shaped server): the requests in order with
// their statuses, a new call appearing live, a request's raw bodies as text, Replay and Edit and
// replay making new steps marked "replayed from #n", and secrets shown masked. Locators by role and
// label; no fixed sleeps.
import { expect, type Locator, type Page, test } from "@playwright/test";

async function startEpisode(page: Page, server: string, env: string, task = 0) {
  await page.goto(`/s/${server}/e/${env}/episode/new?split=train&task=${task}`);
  await expect(page.getByRole("heading", { level: 1, name: "Start an episode" })).toBeVisible();
  await page.getByRole("button", { name: "Start episode" }).click();
  await expect(page).toHaveURL(new RegExp(`/s/${server}/e/${env}/episode/(?!new)[^/?]+$`));
  await expect(page.getByText("Cumulative reward")).toBeVisible();
}

/** Opens the collapsed "Protocol log" region and answers its list of requests. */
async function openLog(page: Page): Promise<{ region: Locator; list: Locator }> {
  const toggle = page.getByRole("button", { name: "Protocol log" });
  await expect(toggle).toHaveAttribute("aria-expanded", "false");
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
  const region = page.getByRole("region", { name: "Protocol log" });
  return { region, list: region.getByRole("listbox", { name: "Requests" }) };
}

/** The accessible names of the listed requests, in order, without the timing and keep-alive pings. */
async function listed(list: Locator): Promise<string[]> {
  const names = await list
    .getByRole("option")
    .evaluateAll((els) => els.map((e) => e.getAttribute("aria-label") ?? ""));
  return names.filter((n) => !n.includes(" /ping,")).map((n) => n.replace(/, [\d.]+ m?s$/, ""));
}

function step(page: Page, n: number, tool: string) {
  return page.getByRole("article", { name: `Step ${n}: ${tool}` });
}

test("the log lists the session's requests live; a call's bodies; Replay and Edit and replay make marked steps", async ({
  page,
}) => {
  await startEpisode(page, "local", "dice");
  const { region, list } = await openLog(page);
  // Opening an episode: the session, the episode, its prompt and its tools, in that order.
  await expect
    .poll(() => listed(list))
    .toEqual([
      "Request 1: POST /create_session, 200",
      "Request 2: POST /create, 200",
      "Request 3: GET /dice/prompt, 200",
      "Request 4: GET /dice/task_tools, 200",
    ]);

  // A call appears in the open log as it is made, without a reload.
  let reloads = 0;
  page.on("framenavigated", (f) => {
    if (f === page.mainFrame()) reloads++;
  });
  await page.getByRole("radio", { name: "echo" }).click();
  await page.getByRole("textbox", { name: "text", exact: true }).fill("<b>bold?</b>");
  await page.getByRole("button", { name: "Call echo" }).click();
  await expect(step(page, 1, "echo").getByText("ok", { exact: true })).toBeVisible();
  const callOption = list.getByRole("option", { name: /POST \/dice\/call, 200/ });
  await expect(callOption).toHaveCount(1);
  expect(reloads).toBe(0);
  const seq = Number((await callOption.getAttribute("aria-label"))?.match(/^Request (\d+):/)?.[1]);
  expect(seq).toBeGreaterThan(4);

  // The keyboard: the list takes the focus; the arrows, Home and End pick a request, Enter opens it.
  // (A keep-alive ping may follow the call: it is reached from the top.)
  await list.focus();
  await page.keyboard.press("End");
  const picked = list.getByRole("option", { selected: true });
  await expect(picked).toHaveCount(1);
  expect(
    Number((await picked.getAttribute("aria-label"))?.match(/^Request (\d+):/)?.[1]),
  ).toBeGreaterThanOrEqual(seq);
  await page.keyboard.press("Home");
  await expect(list.getByRole("option").first()).toHaveAttribute("aria-selected", "true");
  await expect(region.getByRole("region", { name: "Request 1" })).toContainText("POST /create_session");
  await page.keyboard.press("ArrowDown");
  await expect(list.getByRole("option").nth(1)).toHaveAttribute("aria-selected", "true");
  await expect(region.getByRole("region", { name: "Request 2" })).toContainText("POST /create");
  for (let i = 2; i < seq; i++) await page.keyboard.press("ArrowDown");
  await expect(callOption).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Enter");
  const detail = region.getByRole("region", { name: `Request ${seq}` });
  await expect(detail).toBeFocused();
  await expect(detail.getByRole("heading", { name: "POST /dice/call" })).toBeVisible();
  // Raw bodies, as text: the request's JSON, the answer's SSE stream as it came.
  const requestBody = detail.getByRole("region", { name: "Request body" });
  await expect(requestBody).toContainText('"name": "echo"');
  await expect(requestBody).toContainText('"text": "<b>bold?</b>"');
  const responseBody = detail.getByRole("region", { name: "Response body" });
  await expect(responseBody).toContainText("event: task_id");
  await expect(responseBody).toContainText(/event: end\s*data: \{"ok":true/);
  await expect(responseBody).toContainText("echo: <b>bold?</b>");
  await expect(detail).toContainText("text/event-stream");
  await expect(detail.locator("b")).toHaveCount(0);

  // Replay: the same call again, a new step marked as a replay of this request.
  await detail.getByRole("button", { name: "Replay", exact: true }).click();
  const replayed = step(page, 2, "echo");
  await expect(replayed.getByText("ok", { exact: true })).toBeVisible();
  await expect(replayed.getByText(`replayed from #${seq}`, { exact: true })).toBeVisible();
  await expect(replayed.getByRole("region", { name: "Output of step 2" })).toContainText(
    "echo: <b>bold?</b>",
  );
  await expect(detail.getByRole("status")).toContainText("it became step 2");

  // Edit and replay: the input in the tool's JSON editor, changed, sent; the step says it was edited.
  await detail.getByRole("button", { name: "Edit and replay" }).click();
  const edit = detail.getByRole("region", { name: `Edit and replay request ${seq}` });
  const editor = edit.getByLabel("Input JSON of echo");
  await expect(editor).toContainText('"text": "<b>bold?</b>"');
  await editor.fill('{"text": "edited input"}');
  await edit.getByRole("button", { name: "Call echo" }).click();
  const edited = step(page, 3, "echo");
  await expect(edited.getByText("ok", { exact: true })).toBeVisible();
  await expect(edited.getByText(`replayed from #${seq}, edited`, { exact: true })).toBeVisible();
  await expect(edited).toContainText('{"text":"edited input"}');
  await expect(edited.getByRole("region", { name: "Output of step 3" })).toContainText("echo: edited input");
  await expect(detail.getByRole("status")).toContainText("Sent with the edited input: it became step 3");
  await expect(list.getByRole("option", { name: /POST \/dice\/call, 200/ })).toHaveCount(3);

  // The marks are the record's: a reload shows them again.
  await page.reload();
  await expect(step(page, 2, "echo").getByText(`replayed from #${seq}`, { exact: true })).toBeVisible();
  await expect(
    step(page, 3, "echo").getByText(`replayed from #${seq}, edited`, { exact: true }),
  ).toBeVisible();

  // Ending the episode: its /delete is the log's last request.
  const again = await openLog(page);
  await page.getByRole("button", { name: "End episode" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Episode closed" })).toBeVisible();
  await expect.poll(async () => (await listed(again.list)).at(-1)).toMatch(/POST \/delete, 200$/);
});

test("secrets given at /create, in the body or the X-Secrets header, show masked", async ({ page }) => {
  const value = "tok-e2e-not-to-be-seen-4711";
  await page.goto("/s/local/e/secret/episode/new?split=train&task=0");
  await page.getByRole("button", { name: "Add secret" }).click();
  await page.getByLabel("Secret name 1").fill("API_TOKEN");
  await page.getByLabel("Secret value 1").fill(value);
  await page.getByRole("button", { name: "Start episode" }).click();
  await expect(page).toHaveURL(/\/s\/local\/e\/secret\/episode\/(?!new)[^/?]+$/);
  await expect(page.getByText("Cumulative reward")).toBeVisible();
  const sid = new URL(page.url()).pathname.split("/").at(-1)!;

  // A request of the same session sent with an X-Secrets header (as the reference client sends them).
  const xSecrets = Buffer.from(JSON.stringify({ API_TOKEN: { value } })).toString("base64");
  const ping = await page.request.post("/api/servers/local/ping", {
    headers: { "x-session-id": sid, "x-secrets": xSecrets },
  });
  expect(ping.ok()).toBe(true);

  const { region, list } = await openLog(page);
  await list.getByRole("option", { name: /^Request 2: POST \/create, 200/ }).click();
  const create = region.getByRole("region", { name: "Request 2" });
  await expect(create.getByRole("region", { name: "Request body" })).toContainText('"API_TOKEN": "***"');

  const pinged = list.getByRole("option", { name: /POST \/ping, 200/ }).last();
  await pinged.click();
  const detail = region.getByRole("region", { name: /^Request \d+$/ });
  await expect(detail.getByRole("heading", { name: "POST /ping" })).toBeVisible();
  await expect(detail).toContainText("*** (secrets: API_TOKEN)");
  await expect(page.locator("body")).not.toContainText(value);
  expect(await page.content()).not.toContain(value);
});

test("an episode on the reference-shaped server logs its requests too", async ({ page }) => {
  await startEpisode(page, "py", "farmplanner");
  const { region, list } = await openLog(page);
  await expect
    .poll(async () => (await listed(list)).slice(0, 3))
    .toEqual([
      "Request 1: POST /create_session, 200",
      "Request 2: POST /create, 200",
      "Request 3: GET /farmplanner/prompt, 200",
    ]);
  await list.getByRole("option", { name: /^Request 2:/ }).click();
  const detail = region.getByRole("region", { name: "Request 2" });
  await expect(detail.getByRole("region", { name: "Request body" })).toContainText(
    '"env_name": "farmplanner"',
  );
  await expect(detail.getByRole("region", { name: "Response body" })).toContainText('"sid"');
});
