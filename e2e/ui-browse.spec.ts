// UI e2e: browsing servers, environments, tools and tasks, against the real
// built-in host and a second ORS server process reached through the relay. Locators by role/label.
import net from "node:net";
import { expect, type Page, test } from "@playwright/test";
import { EnvironmentPage } from "./pages/environment";
import { settled } from "./steps";

const SECOND_PORT = Number(process.env.E2E_SECOND_PORT ?? 8199);

async function removeServerIfPresent(page: Page, name: string) {
  // Leftovers of an earlier failed run would make "add" fail; the registry persists user servers.
  await page.request.delete(`/api/servers/${name}`).catch(() => undefined);
}

test.describe("browse", () => {
  test("home → environment → tasks tab → select a task → its JSON", async ({ page }) => {
    await page.goto("/");
    const localEnvs = page.getByRole("list", { name: "Environments of local" });
    await localEnvs.getByRole("link", { name: "math", exact: true }).click();

    await expect(page).toHaveURL(/\/s\/local\/e\/math$/);
    await expect(page.getByRole("heading", { level: 1, name: "math" })).toBeVisible();
    // Tools tab first: the tool with its readable schema.
    await expect(page.getByRole("tab", { name: /Tools/ })).toHaveAttribute("aria-selected", "true");
    await expect(page.getByRole("heading", { name: "submit" })).toBeVisible();

    await page.getByRole("tab", { name: "Tasks" }).click();
    await expect(page).toHaveURL(/tab=tasks/);
    await expect(page.getByText(/800 tasks in/)).toBeVisible();
    await page.getByRole("link", { name: "Task 2", exact: true }).click();
    await expect(page).toHaveURL(/split=train&task=2/);

    const expected = await (
      await page.request.post("/api/servers/local/math/task", { data: { split: "train", index: 2 } })
    ).json();
    const json = page.getByRole("region", { name: "Task 2 JSON" });
    await expect(json).toContainText(String(expected.task.question));
    await expect(page.getByRole("link", { name: "Start episode", exact: true })).toHaveAttribute(
      "href",
      "/s/local/e/math/episode/new?split=train&task=2",
    );

    // The tab switch is a history entry: Back returns to the tools.
    await page.goBack();
    await expect(page).toHaveURL(/\/s\/local\/e\/math$/);
    await expect(page.getByRole("tab", { name: /Tools/ })).toHaveAttribute("aria-selected", "true");
    await page.goForward();
    await expect(page.getByRole("region", { name: "Task 2 JSON" })).toBeVisible();
  });

  test("keyboard: arrow keys move the selected task", async ({ page }) => {
    const env = await EnvironmentPage.open(page, "local", "math", { tab: "tasks", split: "train", task: 10 });
    const row = env.taskRow(10);
    await expect(row).toHaveAttribute("aria-current", "true");
    await expect(env.taskJson(10)).toBeVisible();
    await row.focus();
    await page.keyboard.press("ArrowDown");
    await expect(env.taskRow(11)).toBeFocused();
    await expect(page).toHaveURL(/task=11/);
    await expect(env.taskJson(11)).toBeVisible();
  });

  test("a deep link to env/split/task reopens the view", async ({ page }) => {
    await page.goto("/s/second/e/math?tab=tasks&split=test&task=57");
    await expect(page.getByRole("tab", { name: "Tasks" })).toHaveAttribute("aria-selected", "true");
    await expect(page.getByLabel("Split")).toHaveValue("test");
    const row = page.getByRole("link", { name: "Task 57", exact: true });
    await expect(row).toBeInViewport();
    await expect(row).toHaveAttribute("aria-current", "true");
    const expected = await (
      await page.request.post("/api/servers/second/math/task", { data: { split: "test", index: 57 } })
    ).json();
    await expect(page.getByRole("region", { name: "Task 57 JSON" })).toContainText(
      String(expected.task.question),
    );

    // Reload: same view.
    await page.reload();
    await expect(page.getByRole("region", { name: "Task 57 JSON" })).toContainText(
      String(expected.task.question),
    );
  });

  test("jump to index and filter the loaded tasks", async ({ page }) => {
    await page.goto("/s/local/e/bigsplit?tab=tasks&split=train");
    await expect(page.getByText(/100,000 tasks in/)).toBeVisible();
    const jump = page.getByLabel("Jump to index");
    await jump.fill("123456");
    await jump.press("Enter");
    await expect(page.getByText(/No task 123456/)).toBeVisible();
    await jump.fill("54321");
    await jump.press("Enter");
    await expect(page).toHaveURL(/task=54321/);
    await expect(page.getByRole("link", { name: "Task 54321", exact: true })).toBeInViewport();
    await expect(page.getByRole("region", { name: "Task 54321 JSON" })).toContainText("Task #54321");

    await page.getByLabel("Filter loaded tasks").fill("#54322:");
    await expect(page.getByText(/^1 match in \d+ loaded of 100,000 tasks$/)).toBeVisible();
    await expect(page.getByRole("link", { name: "Task 54322", exact: true })).toBeVisible();
    await expect(page.getByRole("link", { name: "Task 54321", exact: true })).toHaveCount(0);
  });

  test("the 100,000-task split scrolled to its end fetches only the visible ranges", async ({ page }) => {
    const ranges: { start: number; stop: number }[] = [];
    page.on("request", (req) => {
      if (req.url().endsWith("/bigsplit/task_range")) ranges.push(JSON.parse(req.postData() ?? "{}"));
    });
    await page.goto("/s/local/e/bigsplit?tab=tasks&split=train");
    await expect(page.getByText(/100,000 tasks in/)).toBeVisible();
    await expect(page.getByRole("link", { name: "Task 0", exact: true })).toContainText("Task #0:");

    const list = page.getByRole("region", { name: "Tasks of train" });
    await list.evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    const last = page.getByRole("link", { name: "Task 99999", exact: true });
    await expect(last).toBeInViewport();
    await expect(last).toContainText("Task #99999:");

    expect(ranges.length).toBeGreaterThan(0);
    expect(ranges.length).toBeLessThan(20);
    // Only the first screen and the last one: nothing in between was fetched.
    for (const r of ranges) expect(r.start < 200 || r.start >= 99_800, JSON.stringify(r)).toBe(true);
    expect(ranges.some((r) => r.stop === 100_000)).toBe(true);
  });

  test("tools: input schemas as readable fields and as raw JSON", async ({ page }) => {
    await page.goto("/s/local/e/schemas?tab=tools");
    const tool = page.getByRole("region", { name: "create_order" });
    await expect(tool.getByRole("heading", { name: "create_order" })).toBeVisible();
    // Nested object fields, required markers, enum values, array items, union options.
    const customer = tool
      .getByRole("listitem")
      .filter({ has: page.locator("code", { hasText: /^customer$/ }) });
    await expect(customer.first()).toContainText("required");
    await expect(customer.first()).toContainText("email");
    await expect(tool).toContainText('"low"');
    await expect(tool).toContainText("each item");
    await expect(tool).toContainText("unitPrice");
    await tool.getByRole("button", { name: "JSON" }).click();
    await expect(tool.getByRole("button", { name: "JSON" })).toHaveAttribute("aria-pressed", "true");
    await expect(tool.locator("pre")).toContainText('"properties"');
  });

  test("the environment page's HTML carries its tools, splits and task counts", async ({ page }) => {
    // Fetched on the server into the query cache the page hydrates: the HTML has the tool cards,
    // and the browser asks the relay for none of them again.
    const html = await (await page.request.get("/s/local/e/math")).text();
    expect(html).toMatch(/<h3[^>]*id="tool-submit-h"[^>]*>submit<\/h3>/);
    expect(html).toMatch(/800 tasks/);
    const asked: string[] = [];
    page.on("request", (r) => {
      if (/\/api\/servers\/local\/(list_environments|math\/(tools|splits|num_tasks))$/.test(r.url()))
        asked.push(r.url());
    });
    await page.goto("/s/local/e/math");
    await expect(page.getByRole("heading", { name: "submit" })).toBeVisible();
    await expect(page.getByRole("link", { name: /^train.*800 tasks/ })).toBeVisible();
    // What is checked is an absence: a refetch would start from hydration's effects, which have
    // run once the loaded page's main thread is idle.
    await settled(page);
    expect(asked).toEqual([]);
  });

  test("a server that never answers leaves the environment page to the browser's loading states", async ({
    page,
  }) => {
    // Accepts connections and never answers: the page's server-side prefetch gives up at its
    // deadline, and the page arrives with the browser fetching, as without the prefetch.
    const silent = net.createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const port = (silent.address() as net.AddressInfo).port;
    try {
      await removeServerIfPresent(page, "e2e-silent");
      const added = await page.request.post("/api/servers", {
        data: { name: "e2e-silent", url: `http://127.0.0.1:${port}` },
      });
      expect(added.status()).toBe(201);
      const res = await page.goto("/s/e2e-silent/e/math");
      expect(res?.status()).toBe(200);
      await expect(page.getByRole("heading", { level: 1, name: "math" })).toBeVisible();
      // The browser's own request: loading, then (the relay timing out) the error with its retry.
      await expect(
        page
          .getByRole("status")
          .filter({ hasText: "Loading tools" })
          .or(page.getByRole("alert").filter({ hasText: "e2e-silent" })),
      ).toBeAttached();
    } finally {
      await removeServerIfPresent(page, "e2e-silent");
      silent.close();
    }
  });

  test("a remote server's unknown environment says so", async ({ page }) => {
    await page.goto("/s/second/e/no-such-env");
    await expect(page.getByRole("heading", { name: "Environment not found" })).toBeVisible();
    await expect(page.getByRole("link", { name: "See second's environments" })).toHaveAttribute(
      "href",
      "/s/second",
    );
  });

  test("an unknown environment or server is a 404 page", async ({ page }) => {
    const res = await page.goto("/s/local/e/no-such-env");
    expect(res?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
    const res2 = await page.goto("/s/no-such-server");
    expect(res2?.status()).toBe(404);
    await expect(page.getByRole("link", { name: "Go to servers" })).toBeVisible();
  });

  test("theme toggle persists across reloads", async ({ page }) => {
    await page.goto("/");
    // The toggle shows the saved choice once hydrated (before that a click would be lost).
    await expect(page.getByRole("button", { name: "System theme" })).toHaveAttribute("aria-pressed", "true");
    await page.getByRole("button", { name: "Dark theme" }).click();
    await expect(page.locator("html")).toHaveClass(/dark/);
    await page.reload();
    await expect(page.locator("html")).toHaveClass(/dark/);
    await expect(page.getByRole("button", { name: "Dark theme" })).toHaveAttribute("aria-pressed", "true");
    await page.getByRole("button", { name: "Light theme" }).click();
    await expect(page.locator("html")).not.toHaveClass(/dark/);
  });
});

test.describe("servers", () => {
  test("add-server form: inline validation, refusal, add, unreachable, remove", async ({ page }) => {
    await removeServerIfPresent(page, "e2e-ui");
    await removeServerIfPresent(page, "e2e-down");
    page.on("dialog", (d) => d.accept());
    await page.goto("/");
    const form = page.getByRole("form", { name: "Add server" });
    const name = form.getByLabel("Name");
    const url = form.getByLabel("URL");
    const submit = form.getByRole("button", { name: "Add server" });

    await submit.click();
    await expect(form.getByText("Enter a name, e.g. py")).toBeVisible();
    await expect(form.getByText(/Enter the server's base URL/)).toBeVisible();
    await expect(name).toBeFocused();
    await expect(name).toHaveAttribute("aria-invalid", "true");

    await name.fill("Bad Name");
    await url.fill("ftp://127.0.0.1:1");
    await submit.click();
    await expect(form.getByText(/Use 1–32 lowercase letters/)).toBeVisible();
    await expect(form.getByText(/must start with http/)).toBeVisible();

    await name.fill("local");
    await url.fill("not a url");
    await submit.click();
    await expect(form.getByText('A server named "local" already exists')).toBeVisible();
    await expect(form.getByText(/Not a valid URL/)).toBeVisible();

    // The registry refuses a cloud-metadata address: its detail shows inline.
    await name.fill("e2e-ui");
    await url.fill("http://169.254.169.254");
    await submit.click();
    await expect(form.getByRole("alert")).toBeVisible();
    await expect(page.getByRole("list", { name: "Environments of e2e-ui" })).toHaveCount(0);

    // A real second server: it appears with its environments; the API key field is masked.
    await expect(form.getByLabel(/API key/)).toHaveAttribute("type", "password");
    await url.fill(`http://127.0.0.1:${SECOND_PORT}`);
    await submit.click();
    await expect(
      page.getByRole("list", { name: "Environments of e2e-ui" }).getByRole("link", { name: "math" }),
    ).toBeVisible();
    await expect(name).toHaveValue("");

    // A server that is down: its card says so and what to do.
    await name.fill("e2e-down");
    await url.fill("http://127.0.0.1:8452");
    await submit.click();
    const down = page.getByRole("alert").filter({ hasText: "e2e-down" });
    await expect(down).toContainText("Server unreachable");
    await expect(down).toContainText('Is "e2e-down" running at http://127.0.0.1:8452?');

    await page.getByRole("button", { name: "Remove server e2e-down" }).click();
    await page.getByRole("button", { name: "Remove server e2e-ui" }).click();
    await expect(page.getByRole("button", { name: "Remove server e2e-ui" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Remove server e2e-down" })).toHaveCount(0);
  });

  test("server picker lists servers with health and switches server", async ({ page }) => {
    await page.goto("/s/local");
    await page.getByRole("button", { name: /Server: local/ }).click();
    // Other specs may add servers; pick exactly the configured "second" by its name and URL.
    await page
      .getByRole("link", { name: new RegExp(`\\bsecond http://127\\.0\\.0\\.1:${SECOND_PORT}$`) })
      .click();
    await expect(page).toHaveURL(/\/s\/second$/);
    await expect(page.getByRole("list", { name: "Environments of second" })).toContainText("bigsplit");
    await expect(
      page.getByRole("button", { name: /Server: second/ }).getByRole("img", { name: /healthy/ }),
    ).toBeVisible();
  });
});
