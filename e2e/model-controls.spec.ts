// UI e2e: a model at the controls of a live episode (docs/runs.md "A model at the controls"),
// with the OpenAI-compatible fixture as a real process (the app's endpoint `fixture`, model
// `oracle`: bisection on `guess`). Step shows the model's text and its call before anything is
// sent; the call is edited in the tool's form and sent; a proposal is rejected; the user takes
// over by calling a tool by hand; Play runs turns until paused, and Play again to the end. The
// model's text and tokens are recorded on its steps (the trajectory says so, and both views show
// it). Locators by role and label; no fixed sleeps.
import { expect, type Page, type Request, test } from "@playwright/test";
import type { Trajectory } from "@/lib/trajectory/schema";
import { EpisodePage } from "./pages/episode";
import { MODEL_FIXTURE, modelDelay, resetModelFixture } from "./pages/runs";
import { settled } from "./steps";

function controls(page: Page) {
  return page.getByRole("region", { name: "Model at the controls" });
}

test.afterEach(resetModelFixture);

test("a model at the controls: step, edit, reject, take over, play, pause, play to the end", async ({
  page,
  baseURL,
}) => {
  // guess, test split, task 16: the hidden number is 100 (bisection needs a few turns).
  const episode = await EpisodePage.start(page, { env: "guess", split: "test", index: 16 });
  const sid = episode.sid;

  const panel = controls(page);
  await expect(panel.getByLabel("Model endpoint")).toHaveValue("fixture");
  await panel.getByLabel("Model id").fill("oracle");

  // Step: the model's turn is shown, and nothing is sent yet.
  await panel.getByRole("button", { name: "Step", exact: true }).click();
  const proposal = panel.getByRole("region", { name: "Model proposal" });
  await expect(proposal).toContainText("Turn 1");
  await expect(proposal).toContainText("I guess 50.");
  await expect(proposal).toContainText(/\d+ in · \d+ out tokens/);
  const call = proposal.getByRole("region", { name: "Proposed call: guess" });
  await expect(call.getByLabel("number")).toHaveValue("50");
  await expect(page.getByRole("article", { name: /^Step 1:/ })).toHaveCount(0);

  // Edited in the tool's form, then sent: the step records that the model proposed it.
  await call.getByLabel("number").fill("40");
  await call.getByRole("button", { name: "Call guess" }).click();
  const first = episode.step(1, "guess");
  await expect(first.getByRole("region", { name: "Output of step 1" })).toHaveText(/higher/);
  await expect(first).toContainText('{"number":40}');
  const note = first.getByRole("note", { name: "Chosen by model oracle, turn 1" });
  await expect(note).toContainText("I guess 50.");
  await expect(note).toContainText(/\d+ in · \d+ out tokens/);
  await expect(proposal).toHaveCount(0);

  // Step again, and reject: nothing is sent.
  await panel.getByRole("button", { name: "Step", exact: true }).click();
  await expect(proposal).toContainText("Turn 2");
  await expect(proposal).toContainText("I guess 70."); // above 40, as the edited call was answered
  await proposal.getByRole("button", { name: "Reject" }).click();
  await expect(proposal).toHaveCount(0);
  await expect(page.getByRole("article", { name: /^Step 2:/ })).toHaveCount(0);

  // The user takes over: a call by hand in the Tools panel (no model mark on it).
  await page.getByRole("radio", { name: "guess", exact: true }).click();
  await page.getByRole("region", { name: "Call guess" }).getByLabel("number").fill("45");
  await page.keyboard.press("Control+Enter");
  const second = episode.step(2, "guess");
  await expect(second.getByRole("region", { name: "Output of step 2" })).toHaveText(/higher/);
  await expect(second.getByRole("note")).toHaveCount(0);

  // Play, slowed down so Pause lands between turns; it stops before the end.
  await modelDelay(800);
  await panel.getByRole("button", { name: "Play", exact: true }).click();
  await expect(panel.getByText(/^Playing: turn \d+ of at most 30/)).toBeVisible();
  await expect(episode.step(3, "guess")).toBeVisible();
  await panel.getByRole("button", { name: "Pause", exact: true }).click();
  await expect(panel.getByText("Paused.")).toBeVisible();
  await expect(panel.getByRole("button", { name: "Play", exact: true })).toBeEnabled();
  const paused = await page.getByRole("article", { name: /^Step \d+: guess$/ }).count();
  expect(paused).toBeGreaterThanOrEqual(3);
  await expect(page.getByRole("status").filter({ hasText: "Episode finished" })).toHaveCount(0);

  // Play again, at full speed, to the end: bisection above 45 finds 100.
  await modelDelay(0);
  await panel.getByRole("button", { name: "Play", exact: true }).click();
  await expect(page.getByRole("status").filter({ hasText: "Episode finished" })).toBeVisible();
  await expect(panel.getByRole("button", { name: "Play", exact: true })).toBeDisabled();
  const last = page.getByRole("article", { name: /^Step \d+: guess$/ }).last();
  await expect(last.getByRole("region", { name: /^Output of step/ })).toHaveText(/correct/);
  await expect(last.getByRole("note", { name: /^Chosen by model oracle, turn \d+$/ })).toBeVisible();

  // The record: the model's calls carry its mark (text and tokens on each turn), the hand call none.
  const res = await fetch(`${baseURL}/api/trajectories/by-session/local/${encodeURIComponent(sid)}`);
  const t = (await res.json()) as Trajectory;
  expect(t.end_reason).toBe("finished");
  expect(t.steps[0]!.agent).toMatchObject({
    policy: "model",
    model: "oracle",
    turn: 1,
    message: "Turn 1: I guess 50.",
  });
  expect(t.steps[0]!.agent!.usage!.prompt_tokens).toBeGreaterThan(0);
  expect(t.steps[1]!.agent).toBeUndefined();
  expect(t.steps.slice(2).every((s) => s.agent?.model === "oracle" && s.agent.usage)).toBe(true);
  expect(t.steps.at(-1)!.input).toEqual({ number: 100 });

  // The trajectory page shows the model's text beside its calls too.
  await page.goto(`/trajectories/${encodeURIComponent(t.id)}?step=1`);
  await expect(page.getByRole("note", { name: "Chosen by model oracle, turn 1" })).toContainText(
    "I guess 50.",
  );
});

test("the model answering without a call says so, and sends nothing", async ({ page }) => {
  await EpisodePage.start(page, { env: "math", split: "test", index: 0 });
  const panel = controls(page);
  await panel.getByLabel("Model id").fill("chatty");
  await panel.getByRole("button", { name: "Step", exact: true }).click();
  await expect(panel).toContainText("The model proposes no call: it answered without a tool call.");
  await expect(panel.getByRole("region", { name: "Model proposal" })).toContainText(
    "I think the answer is 42",
  );
  await expect(page.getByRole("article", { name: /^Step 1:/ })).toHaveCount(0);
  // An endpoint that fails says why (the model-turn API's 502), and the page stays usable.
  await fetch(`${MODEL_FIXTURE}/__fixture/fail`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ failures: [{ status: 400 }] }),
  });
  await panel.getByRole("button", { name: "Dismiss the proposal" }).click();
  await panel.getByRole("button", { name: "Step", exact: true }).click();
  await expect(panel.getByRole("alert")).toContainText("fixture failure 400");
  await expect(panel.getByRole("button", { name: "Step", exact: true })).toBeEnabled();
});

test("the model id offers the endpoint's models, takes the first, and remembers the last choice", async ({
  page,
}) => {
  await EpisodePage.start(page, { env: "math", split: "test", index: 0 });
  const panel = controls(page);
  const model = panel.getByRole("combobox", { name: "Model id" });
  // The endpoint's own list (GET /v1/models through the app; its key stays on the server).
  await expect(model).toHaveValue("oracle");
  await expect(panel.getByText("6 models listed by the endpoint")).toBeVisible();
  expect(
    await model.evaluate((el) => [...((el as HTMLInputElement).list?.options ?? [])].map((o) => o.value)),
  ).toEqual(["oracle", "wrong", "chatty", "multi", "broken-args", "off-schema"]);
  await expect(panel.getByRole("button", { name: "Step", exact: true })).toBeEnabled();
  // Still free text; the last choice comes back for this endpoint, here and on the new-run form.
  await model.fill("chatty");
  await page.reload();
  await expect(controls(page).getByRole("combobox", { name: "Model id" })).toHaveValue("chatty");
  await page.goto("/runs/new?server=local&env=math");
  await expect(page.getByRole("combobox", { name: "Model id" })).toHaveValue("chatty");
});

test("a call by hand during Play pauses the model at once, and nothing is sent after the end", async ({
  page,
  baseURL,
}) => {
  // guess, test split, task 16: the hidden number is 100.
  const episode = await EpisodePage.start(page, { env: "guess", split: "test", index: 16 });
  const panel = controls(page);
  await expect(panel.getByRole("combobox", { name: "Model id" })).toHaveValue("oracle");
  await page.getByRole("radio", { name: "guess", exact: true }).click();
  const tools = page.getByRole("region", { name: "Call guess" });
  const call = tools.getByRole("button", { name: "Call guess" });
  await expect(call).toBeEnabled();
  // Every change of the Call button's disabled state while the model plays.
  await call.evaluate((button) => {
    const w = window as unknown as { callFlips: number };
    w.callFlips = 0;
    new MutationObserver(() => w.callFlips++).observe(button, { attributeFilter: ["disabled"] });
  });
  // The model's turns this page asks for: in flight now, and started after the hand call.
  const turns = { seen: 0, inFlight: 0, afterHand: 0, handDone: false };
  const isTurn = (r: Request) => r.method() === "POST" && r.url().endsWith("/model-turn");
  page.on("request", (r) => {
    if (!isTurn(r)) return;
    turns.seen++;
    turns.inFlight++;
    if (turns.handDone) turns.afterHand++;
  });
  const settledTurn = (r: Request) => {
    if (isTurn(r)) turns.inFlight--;
  };
  page.on("requestfinished", settledTurn);
  page.on("requestfailed", settledTurn);
  await modelDelay(600);
  await panel.getByRole("button", { name: "Play", exact: true }).click();
  await expect(episode.step(2, "guess")).toBeVisible();
  // The model's turns are the requests watched here.
  expect(turns.seen).toBeGreaterThan(0);
  expect(await page.evaluate(() => (window as unknown as { callFlips: number }).callFlips)).toBe(0);

  // The hand call: the model pauses at once (its turn dropped), the call goes, it finishes.
  await tools.getByLabel("number").fill("100");
  await call.click();
  turns.handDone = true;
  const finished = page.getByRole("status").filter({ hasText: "Episode finished" });
  await expect(finished).toBeVisible();
  // Once ended, the panel says only that (no "hand it back").
  await expect(panel.getByRole("status")).toHaveText("The episode has ended.");
  await expect(panel).not.toContainText("hand it back");
  // Nothing more is sent: the turn dropped by the hand call has come back (or failed), and once
  // the page has handled it and gone idle, no turn started after the hand call.
  await expect.poll(() => turns.inFlight).toBe(0);
  await settled(page);
  expect(turns.afterHand).toBe(0);
  const res = await fetch(`${baseURL}/api/trajectories/by-session/local/${encodeURIComponent(episode.sid)}`);
  const t = (await res.json()) as Trajectory;
  expect(t.end_reason).toBe("finished");
  const last = t.steps.at(-1)!;
  expect(last.input).toEqual({ number: 100 });
  expect(last.agent).toBeUndefined();
  expect(t.steps.some((s) => s.after_end)).toBe(false);
});

test("Play refuses a call that does not fit the tool's schema, as Step does, and sends nothing", async ({
  page,
}) => {
  await EpisodePage.start(page, { env: "guess", split: "test", index: 16 });
  const panel = controls(page);
  await panel.getByRole("combobox", { name: "Model id" }).fill("off-schema");
  await panel.getByRole("button", { name: "Play", exact: true }).click();
  await expect(panel.getByRole("alert")).toContainText(
    "The model's call of guess does not fit the tool's input schema",
  );
  await expect(panel.getByRole("alert")).toContainText("number");
  // Shown as Step shows it, to edit or reject; nothing was sent.
  const proposed = panel.getByRole("region", { name: "Proposed call: guess" });
  await expect(proposed.getByRole("button", { name: "Call guess" })).toBeVisible();
  await expect(page.getByRole("article", { name: /^Step 1:/ })).toHaveCount(0);
  await expect(panel.getByRole("button", { name: "Play", exact: true })).toBeVisible();
});
