// UI e2e: running episodes against the real built-in host through the
// relay: start from a task, fill a schema-generated nested form, watch the stream, reward and end;
// a multi-step episode to `finished`; an image observation; a slow tool's pings; validation that
// blocks a bad call; a reload that reopens the live episode and picks up an in-flight call.
// Locators by role and label; no fixed sleeps. The Next server runs with ORS_PING_INTERVAL_MS=1000.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, type Page, test } from "@playwright/test";
import { EnvironmentPage, hydrated } from "./pages/environment";
import { EpisodePage } from "./pages/episode";
import { settled } from "./steps";

/** Episode e2e's own loopback port (the task's 8500–8549 range) for a stream-dropping proxy. */
/** The second ORS server of the e2e config (the standalone host), behind the dropping proxy. */
const SECOND_PORT = Number(process.env.E2E_SECOND_PORT ?? 8199);

/**
 * A loopback ORS server in front of the second server that cuts the first /call stream
 * (not a re-post with task_id) right after its task_id: the client must reconnect.
 */
async function startDroppingProxy(target: string): Promise<{ url: string; close: () => Promise<void> }> {
  let dropped = false;
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === "string" && !["host", "connection", "content-length", "origin"].includes(k))
        headers[k] = v;
    }
    const up = await fetch(target + req.url, {
      method: req.method,
      headers,
      body: req.method === "GET" ? undefined : body,
    });
    const out: Record<string, string> = {};
    up.headers.forEach((v, k) => {
      if (!["content-length", "content-encoding", "transfer-encoding"].includes(k)) out[k] = v;
    });
    res.writeHead(up.status, out);
    const cut = req.url?.endsWith("/call") && !dropped && !JSON.parse(body?.toString() || "{}").task_id;
    const reader = up.body!.getReader();
    let seen = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      res.write(value);
      seen += Buffer.from(value).toString();
      if (cut && seen.includes("event: task_id")) {
        dropped = true;
        // Mid-stream: the task_id has reached the client before the connection breaks.
        await new Promise((r) => setTimeout(r, 300));
        await reader.cancel();
        res.socket?.destroy();
        return;
      }
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Starts an episode of `env` on the built-in host; resolves once it shows its reward. */
async function startEpisode(page: Page, env: string, split = "train", index = 0): Promise<EpisodePage> {
  const episode = await EpisodePage.start(page, { env, split, index });
  await expect(episode.cumulativeReward).toBeVisible();
  return episode;
}

test.describe("run an episode", () => {
  test("browse → task → start → nested form → call → streamed result → end", async ({ page }) => {
    const episode = new EpisodePage(page);
    const env = await EnvironmentPage.open(page, "local", "schemas", {
      tab: "tasks",
      split: "train",
      task: 0,
    });
    await env.startEpisode();
    await expect(page).toHaveURL(/\/s\/local\/e\/schemas\/episode\/new\?split=train&task=0$/);
    await expect(page.getByRole("region", { name: "Task train/0" })).toContainText("id");
    await page.getByRole("button", { name: "Start episode" }).click();
    await expect(page).toHaveURL(/\/episode\/(?!new)[^/?]+$/);
    await expect(page.getByText("Fill in the forms of the tools")).toBeVisible();

    await page.getByRole("radio", { name: "nested" }).click();
    const form = page.getByRole("region", { name: "Call nested" });
    await form.getByLabel("title").fill("Groceries");
    await form.getByLabel("name").fill("Ada");
    await form.getByLabel("email").fill("ada@example.com");
    await form.getByRole("button", { name: "Add Item" }).click();
    await form.getByLabel("label").fill("Apples");
    await form.getByLabel("quantity").fill("3");
    await form.getByLabel("urgent").check();
    // The JSON tab (a CodeMirror editor) shows the same value.
    await form.getByRole("tab", { name: "JSON" }).click();
    const json = form.getByLabel("Input JSON of nested");
    await expect(json).toContainText(/"label": "Apples"/);
    await expect(json).toContainText(/"quantity": 3/);
    await form.getByRole("tab", { name: "Form" }).click();
    await form.getByRole("button", { name: "Call nested" }).click();

    const s1 = episode.step(1, "nested");
    await expect(s1.getByText("ok", { exact: true })).toBeVisible();
    await expect(s1.getByRole("region", { name: "Output of step 1" })).toContainText(
      "Groceries — owner Ada, 1 item(s), urgent.",
    );
    // The stream: task_id then the result in one `end` piece, with sizes.
    await s1.getByText(/SSE stream · 2 events/).click();
    const log = s1.getByRole("list", { name: "Stream of step 1" });
    await expect(log.getByRole("listitem")).toHaveCount(2);
    await expect(log.getByRole("listitem").first()).toContainText("task_id");
    await expect(log.getByRole("listitem").nth(1)).toContainText(/end\s*\d+ chars/);

    await page.getByRole("button", { name: "End episode" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Episode closed" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Restart on this task" })).toHaveAttribute(
      "href",
      "/s/local/e/schemas/episode/new?split=train&task=0",
    );
  });

  test("a multi-step episode (guess) runs to finished with rewards", async ({ page }) => {
    const episode = await startEpisode(page, "guess", "train", 3);
    await page.getByRole("radio", { name: "guess", exact: true }).click();
    const number = page.getByLabel("number");
    let lo = 1;
    let hi = 100;
    let n = 0;
    for (; n < 10; n++) {
      const g = Math.floor((lo + hi) / 2);
      await number.fill(String(g));
      await page.keyboard.press("Control+Enter");
      const card = episode.step(n + 1, "guess");
      const output = card.getByRole("region", { name: `Output of step ${n + 1}` });
      await expect(output).toHaveText(/higher|lower|correct/i);
      const text = ((await output.textContent()) ?? "").toLowerCase();
      if (text.includes("correct")) break;
      if (text.includes("higher")) lo = g + 1;
      else hi = g - 1;
    }
    await expect(page.getByRole("status").filter({ hasText: "Episode finished" })).toBeVisible();
    await expect(episode.step(n + 1, "guess").getByText("finished", { exact: true })).toBeVisible();
    const table = page.getByRole("table", { name: "Reward per step" });
    await expect(table.getByRole("row")).toHaveCount(n + 2);
    const finalReward = Math.max(0, Math.round((1 - n / 10) * 100) / 100);
    await expect(table.getByRole("row").last()).toContainText(String(finalReward));
    await expect(page.getByRole("link", { name: "Restart on this task" })).toHaveAttribute(
      "href",
      "/s/local/e/guess/episode/new?split=train&task=3",
    );
  });

  test("an image observation (paint) renders as a data: URL", async ({ page }) => {
    const episode = await startEpisode(page, "paint");
    const promptImage = page.getByRole("img", { name: /png observation/ }).first();
    await expect(promptImage).toHaveAttribute("src", /^data:image\/png;base64,/);
    await page.getByLabel("shape").selectOption({ label: "square" });
    await page.getByLabel("color").fill("#00aa00");
    await page.getByRole("button", { name: "Call draw" }).click();
    const out = episode.step(1, "draw").getByRole("region", { name: "Output of step 1" });
    const img = out.getByRole("img");
    await expect(img).toHaveAttribute("src", /^data:image\/png;base64,/);
    await expect
      .poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth))
      .toBeGreaterThan(0);
  });

  test("a slow tool shows keep-alive pings while it runs, then its result", async ({ page }) => {
    const episode = await startEpisode(page, "slow");
    await page.getByRole("radio", { name: "wait" }).click();
    await page.getByLabel("seconds").fill("3");
    await page.getByRole("button", { name: "Call wait" }).click();
    const card = episode.step(1, "wait");
    await expect(card.getByText("running", { exact: true })).toBeVisible();
    await expect(card.getByRole("timer")).toContainText(/running \d/);
    const log = card.getByRole("list", { name: "Stream of step 1" });
    await expect(log.getByRole("listitem").filter({ hasText: "ping" }).nth(1)).toContainText(
      /call running for \d/,
    );
    await expect(card.getByText("ok", { exact: true })).toBeVisible({ timeout: 20_000 });
    await expect(card.getByRole("region", { name: "Output of step 1" })).not.toBeEmpty();
  });

  test("validation errors block a bad call; invalid JSON never clobbers the form", async ({ page }) => {
    const episode = await startEpisode(page, "paint");
    let calls = 0;
    page.on("request", (r) => {
      if (r.url().endsWith("/paint/call")) calls++;
    });
    await page.getByRole("button", { name: "Call draw" }).click();
    await expect(page.getByText("is required").first()).toBeVisible();
    await page.getByLabel("shape").selectOption({ label: "circle" });
    await page.getByLabel("color").fill("red");
    await page.getByRole("button", { name: "Call draw" }).click();
    await expect(page.getByText(/must match/).first()).toBeVisible();
    await expect(page.getByText("No steps yet.")).toBeVisible();
    // The JSON tab: invalid JSON is reported with its position and leaves the value alone.
    await page.getByRole("tab", { name: "JSON" }).click();
    const json = page.getByLabel("Input JSON of draw");
    await expect(json).toContainText(/"color": "red"/);
    await json.fill('{"shape": "circle", "color": ');
    await expect(page.getByText(/Invalid JSON: .*line 1, column/)).toBeVisible();
    await page.getByRole("tab", { name: "Form" }).click();
    await expect(page.getByLabel("color")).toHaveValue("red");
    await expect(page.getByText("The JSON tab has invalid JSON")).toBeVisible();
    expect(calls).toBe(0);
    // Fixed, the call goes through.
    await page.getByLabel("color").fill("#ff0000");
    await page.getByRole("button", { name: "Call draw" }).click();
    await expect(episode.step(1, "draw").getByText("ok", { exact: true })).toBeVisible();
    expect(calls).toBe(1);
  });

  test("a reload reopens the recorded episode; the call in flight goes on and its result arrives", async ({
    page,
  }) => {
    const episode = await startEpisode(page, "slow");
    await page.getByRole("radio", { name: "fast" }).click();
    await page.getByRole("button", { name: "Call fast" }).click();
    await expect(episode.step(1, "fast").getByText("ok", { exact: true })).toBeVisible();

    await page.getByRole("radio", { name: "wait" }).click();
    await page.getByLabel("seconds").fill("4");
    await page.getByRole("button", { name: "Call wait" }).click();
    const running = episode.step(2, "wait");
    // Once the server has given the call its task_id, reload in the middle of it.
    await expect(running.getByRole("list", { name: "Stream of step 2" })).toContainText("task_id");
    const url = page.url();
    let prompts = 0;
    page.on("request", (r) => {
      if (r.url().endsWith("/prompt")) prompts++;
    });
    await page.reload();
    await expect(page).toHaveURL(url);
    await expect(episode.step(1, "fast").getByText("ok", { exact: true })).toBeVisible();
    // The call was never dropped: the relay went on reading it and the record shows it running...
    const again = episode.step(2, "wait");
    await expect(again.getByText("running", { exact: true })).toBeVisible();
    // ...then its result, with the call's true latency (from its start, before the reload).
    await expect(again.getByText("ok", { exact: true })).toBeVisible({ timeout: 20_000 });
    await expect(again.getByText(/^4\.\d s$/)).toBeVisible();
    await expect(page.getByText("live", { exact: true })).toBeVisible();
    // Reopening never asks the environment for the prompt again.
    expect(prompts).toBe(0);
    // The wait tool's input is remembered for this task.
    await page.getByRole("radio", { name: "wait" }).click();
    await expect(page.getByLabel("seconds")).toHaveValue("4");
    // ?step=N deep-links a step.
    await page.goto(`${url}?step=1`);
    await expect(episode.step(1, "fast")).toBeInViewport();
  });

  test("a hand-written task_spec: validated as typed, started, finished, restarted with the same spec", async ({
    page,
  }) => {
    await page.goto("/s/local/e/math/episode/new");
    const editor = await hydrated(page.getByLabel("task_spec (JSON)"));
    await editor.fill('{\n  "question": "What is 2 + 2?",\n  "answer": "4",\n}');
    await expect(page.getByText(/line 4, column 1/)).toBeVisible();
    await page.getByRole("button", { name: "Start episode" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "task_spec:" })).toBeVisible();
    await expect(page).toHaveURL(/\/episode\/new$/);
    await editor.fill('{\n  "question": "What is 2 + 2?",\n  "answer": "4"\n}');
    await expect(page.getByText("Valid JSON object with 2 key(s).")).toBeVisible();
    await page.getByRole("button", { name: "Start episode" }).click();
    await expect(page).toHaveURL(/\/episode\/(?!new)[^/?]+$/);
    await expect(page.getByRole("region", { name: "Prompt" })).toContainText("What is 2 + 2?");
    await page.getByLabel("answer").fill("4");
    await page.getByRole("button", { name: "Call submit" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Episode finished" })).toBeVisible();
    await expect(page.getByRole("table", { name: "Reward per step" })).toContainText("+1");
    await page.getByRole("link", { name: "Restart on this task" }).click();
    // The spec is in the link itself: a reload and a new tab (no sessionStorage) open on it too.
    await expect(page).toHaveURL(/\/episode\/new\?task_spec=/);
    await expect(page.getByLabel("task_spec (JSON)")).toHaveValue(/"answer": "4"/);
    await page.reload();
    await expect(page.getByLabel("task_spec (JSON)")).toHaveValue(/"answer": "4"/);
    const other = await page
      .context()
      .browser()!
      .newPage({ baseURL: new URL(page.url()).origin });
    await other.goto(page.url());
    await expect(other.getByLabel("task_spec (JSON)")).toHaveValue(/"question": "What is 2 \+ 2\?"/);
    await other.close();
  });

  test("restart on a large task_spec links the recorded episode, and works in a new tab", async ({
    page,
  }) => {
    // A spec too long for a link (lib/ui/episode-links.ts): the link names the recorded episode.
    const filler = "x".repeat(3000);
    await page.goto("/s/local/e/math/episode/new");
    // Typed once hydrated: a fill of the server-rendered editor before then can be joined to its
    // initial text when React takes the page over (a CI run saw it); early typing has its own case.
    await (await hydrated(page.getByLabel("task_spec (JSON)"))).fill(
      JSON.stringify({ question: "What is 3 + 4?", answer: "7", filler }, null, 2),
    );
    await page.getByRole("button", { name: "Start episode" }).click();
    await expect(page).toHaveURL(/\/episode\/(?!new)[^/?]+$/);
    await page.getByRole("button", { name: "End episode" }).click();
    await page.getByRole("link", { name: "Restart on this task" }).click();
    await expect(page).toHaveURL(/\/episode\/new\?from=[^&]+$/);
    const url = page.url();
    expect(url.length).toBeLessThan(300);
    const other = await page
      .context()
      .browser()!
      .newPage({ baseURL: new URL(url).origin });
    await other.goto(url);
    const editor = other.getByLabel("task_spec (JSON)");
    await expect(editor).toHaveValue(/"answer": "7"/);
    await expect(editor).toHaveValue(new RegExp(`"filler": "${filler}"`));
    // Edits are this tab's draft: a reload keeps them.
    await editor.fill('{"question": "What is 1 + 1?", "answer": "2"}');
    await other.reload();
    await expect(other.getByLabel("task_spec (JSON)")).toHaveValue(/"answer": "2"/);
    await other.getByRole("button", { name: "Start episode" }).click();
    await expect(other.getByRole("region", { name: "Prompt" })).toContainText("What is 1 + 1?");
    await other.close();
  });

  test("an episode on a second server, through the relay", async ({ page }) => {
    const task = await (
      await page.request.post("/api/servers/second/math/task", { data: { split: "test", index: 5 } })
    ).json();
    const episode = await EpisodePage.start(page, { server: "second", env: "math", split: "test", index: 5 });
    await expect(page.getByRole("region", { name: "Prompt" })).toContainText(task.task.question);
    await page.getByLabel("answer").fill(task.task.answer);
    await page.keyboard.press("Control+Enter");
    await expect(episode.step(1, "submit").getByRole("region", { name: "Output of step 1" })).toContainText(
      "Correct!",
    );
    await expect(page.getByRole("status").filter({ hasText: "Episode finished" })).toBeVisible();
  });

  test("the episode page carries its record and its session's tools: the form needs no request", async ({
    page,
  }) => {
    // Handed over with the page (the record as read on the server, the tools prefetched into the
    // query cache it hydrates): the browser neither looks the session up nor asks for its tools.
    const episode = await startEpisode(page, "math");
    const asked: string[] = [];
    page.on("request", (r) => {
      if (/\/api\/(trajectories\/by-session\/|servers\/local\/math\/(task_)?tools$)/.test(r.url()))
        asked.push(r.url());
    });
    await page.reload();
    const form = page.getByRole("region", { name: "Call submit" });
    await expect(form.getByRole("textbox", { name: /answer/ })).toBeEnabled();
    await expect(form.getByRole("button", { name: "Call submit" })).toBeEnabled();
    // What is checked is an absence: a refetch would start from hydration's effects, which have
    // run once the loaded page's main thread is idle.
    await settled(page);
    expect(asked).toEqual([]);
    await episode.pickTool("submit");
  });

  test("keep-alive pings only while the page is visible", async ({ page }) => {
    await page.clock.install();
    await startEpisode(page, "math");
    let pings = 0;
    page.on("request", (r) => {
      if (r.url().endsWith("/ping")) pings++;
    });
    await page.clock.pauseAt(Date.now() + 1000);
    // Visible: a ping every 10 s.
    await expect
      .poll(async () => {
        await page.clock.runFor(10_000);
        return pings;
      })
      .toBeGreaterThanOrEqual(2);
    // Hidden: none, so an abandoned episode expires as the spec says.
    await page.evaluate(() => {
      Object.defineProperty(document, "visibilityState", { value: "hidden", configurable: true });
      document.dispatchEvent(new Event("visibilitychange"));
    });
    const before = pings;
    await page.clock.runFor(60_000);
    await page.clock.runFor(60_000);
    expect(pings).toBe(before);
    // Visible again: a ping at once.
    await page.evaluate(() => {
      Object.defineProperty(document, "visibilityState", { value: "visible", configurable: true });
      document.dispatchEvent(new Event("visibilitychange"));
    });
    await expect.poll(() => pings).toBeGreaterThan(before);
    await expect(page.getByText("live", { exact: true })).toBeVisible();
  });

  test("a dropped stream shows its reconnection, then the result", async ({ page, baseURL }) => {
    const proxy = await startDroppingProxy(`http://127.0.0.1:${SECOND_PORT}`);
    const origin = { origin: baseURL! };
    try {
      await page.request.delete("/api/servers/dropper", { headers: origin }).catch(() => undefined);
      const added = await page.request.post("/api/servers", {
        headers: origin,
        data: { name: "dropper", url: proxy.url },
      });
      expect(added.ok()).toBe(true);
      const episode = await EpisodePage.start(page, { server: "dropper", env: "slow" });
      await page.getByRole("radio", { name: "wait" }).click();
      await page.getByLabel("seconds").fill("2");
      await page.getByRole("button", { name: "Call wait" }).click();
      const card = episode.step(1, "wait");
      await expect(card.getByText("ok", { exact: true })).toBeVisible({ timeout: 20_000 });
      // The relay continued the same step when this tab's client re-posted with the task_id...
      await expect(card.getByText("picked up by task_id")).toBeVisible();
      await card.getByText(/SSE stream ·/).click();
      const log = card.getByRole("list", { name: "Stream of step 1" });
      // ...and this tab shows what its own client saw.
      await expect(log.getByRole("listitem").filter({ hasText: "reconnect" })).toContainText(
        "this tab: attempt 1",
      );
      await expect(card.getByRole("region", { name: "Output of step 1" })).toContainText("Waited");
    } finally {
      await page.request.delete("/api/servers/dropper", { headers: origin }).catch(() => undefined);
      await proxy.close();
    }
  });

  test("a setup failure (brokensetup) is reported on the start page with try again", async ({ page }) => {
    await page.goto("/s/local/e/brokensetup/episode/new?split=train&task=0");
    await page.getByRole("button", { name: "Start episode" }).click();
    const alert = page.getByRole("alert").filter({ hasText: "The episode could not start" });
    await expect(alert).toContainText(/setup failed/i);
    await expect(page).toHaveURL(/\/episode\/new/);
    await alert.getByRole("button", { name: "Try again" }).click();
    await expect(alert).toContainText(/setup failed/i);
  });
});
