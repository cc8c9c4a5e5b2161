// UI e2e: an environment compared with another server's (the compare view): from the environment
// page's "Compare with…", the same environment on the second server shows no change; another
// environment shows the surface diff as a table, each change's class in the CLI's colours (breaking
// red, compatible amber); the choice is in the URL, so a reload shows it again.
import { expect, test } from "@playwright/test";
import { ComparePage } from "./pages/compare";
import { EnvironmentPage, hydrated } from "./pages/environment";

test("Compare with…: the surface diff of two environments as a table, in the classes' colours", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const env = await EnvironmentPage.open(page, "local", "math");
  await (await hydrated(env.compareLink())).click();
  await expect(page).toHaveURL(/\/s\/local\/e\/math\/compare$/);
  await expect(page.getByRole("heading", { name: "Compare math with…" })).toBeVisible();

  const compare = new ComparePage(page);
  await hydrated(page.getByLabel("Server", { exact: true }));
  await compare.compareWith("second", "math");
  await expect(page).toHaveURL(/\?with=second&withEnv=math$/);
  await expect(compare.verdict).toHaveText("unchanged: no surface change", { timeout: 60_000 });
  await expect(page.getByText("No surface change.")).toBeVisible();

  await compare.compareWith("second", "guess");
  await expect(compare.verdict).toContainText("breaking:", { timeout: 60_000 });
  const removed = compare.row("tool submit removed");
  await expect(removed.getByText("breaking", { exact: true })).toHaveClass(/bg-red-50/);
  await expect(removed.getByRole("cell").last()).toHaveText("math/tools/submit");
  const added = compare.row("tool guess added");
  await expect(added.getByText("compatible", { exact: true })).toHaveClass(/bg-amber-50/);

  await page.reload();
  await expect(compare.verdict).toContainText("breaking:", { timeout: 60_000 });
  await expect(compare.row("tool submit removed")).toBeVisible();
});
