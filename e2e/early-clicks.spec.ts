// Early clicks: the environment page and the new-episode page arrive server-rendered, so their
// controls are on screen before React hydrates them. Their primary actions are real links and
// forms, so a click right after the first paint does what it says. Each test holds the page's
// scripts back (nothing is hydrated), checks that the control is not hydrated, acts, then lets the
// scripts through and checks the result.
import { expect, type Locator, type Page, test } from "@playwright/test";

/** Holds back every script of the app until the returned function is called. */
async function holdScripts(page: Page): Promise<() => void> {
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  await page.route(/\/_next\/static\/.+\.js(\?|$)/, async (route) => {
    await gate;
    await route.continue();
  });
  return release;
}

/** Opens `url` with the app's scripts held back, does `act` there, then lets the scripts through. */
async function beforeHydration(page: Page, url: string, act: () => Promise<void>): Promise<void> {
  const release = await holdScripts(page);
  try {
    await page.goto(url, { waitUntil: "commit" });
    await act();
  } finally {
    release();
  }
}

/** Asserts that React has not hydrated the element yet (it keeps its props on the node once it has). */
async function notHydrated(el: Locator): Promise<Locator> {
  expect(
    await el.evaluate((node) => Object.keys(node).some((k) => k.startsWith("__reactProps$"))),
    "the control is clicked before React has hydrated it",
  ).toBe(false);
  return el;
}

test.describe("early clicks", () => {
  test("the environment page's Tasks tab works before hydration", async ({ page }) => {
    await beforeHydration(page, "/s/local/e/math", async () =>
      (await notHydrated(page.getByRole("tab", { name: "Tasks" }))).click(),
    );
    await expect(page).toHaveURL(/\/s\/local\/e\/math\?tab=tasks$/);
    await expect(page.getByRole("tab", { name: "Tasks" })).toHaveAttribute("aria-selected", "true");
    await expect(page.getByText(/800 tasks in/)).toBeVisible();
  });

  test("a task's row works before hydration, and shows its JSON", async ({ page }) => {
    await beforeHydration(page, "/s/local/e/math?tab=tasks&split=train", async () =>
      (await notHydrated(page.getByRole("link", { name: "Task 3", exact: true }))).click(),
    );
    await expect(page).toHaveURL(/tab=tasks&split=train&task=3$/);
    await expect(page.getByRole("region", { name: "Task 3 JSON" })).toBeVisible();
  });

  test("Jump to index works before hydration", async ({ page }) => {
    await beforeHydration(page, "/s/local/e/math?tab=tasks&split=test", async () => {
      const jump = await notHydrated(page.getByLabel("Jump to index"));
      await jump.fill("57");
      await jump.press("Enter");
    });
    await expect(page).toHaveURL(/tab=tasks&split=test&task=57$/);
    await expect(page.getByRole("region", { name: "Task 57 JSON" })).toBeVisible();
  });

  test("Start episode on the new-episode page works before hydration", async ({ page }) => {
    await beforeHydration(page, "/s/local/e/math/episode/new?split=train&task=0", async () =>
      (await notHydrated(page.getByRole("button", { name: "Start episode" }))).click(),
    );
    await expect(page).toHaveURL(/\/s\/local\/e\/math\/episode\/(?!new)[^/?]+$/);
    await expect(page.getByRole("region", { name: "Prompt" })).toBeVisible();
  });
});
