// UI e2e: the environment quality checks on the check page — asked for with the protocol check, on
// the built-in `math` with an oracle that misses (tests/runs/fixtures/math-oracle.ts answers wrong on
// tasks whose index is a multiple of 5): the sample, each check's outcome, the finding naming the
// task and its call, and the link to the recorded episode. Locators by role and label.
import { expect, test } from "@playwright/test";

test("check this server with its environment's quality: the sample, the findings, links to the episodes", async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.goto("/s/local/check");
  await page.getByText("Options", { exact: true }).click();
  await page.getByLabel("Environment", { exact: true }).fill("math");
  const quality = page.getByLabel("Also check the environment's quality");
  await quality.focus();
  await page.keyboard.press("Space");
  await expect(quality).toBeChecked();
  await page.getByLabel("Split").fill("test");
  await page.getByLabel("Tasks to sample").fill("10");
  await page.getByLabel("Oracle module").fill("tests/runs/fixtures/math-oracle.ts");
  await expect(page.getByText(/--quality --env math --split test --tasks 10 --oracle/)).toBeVisible();
  await page.getByRole("button", { name: "Run check" }).click();

  const summary = page.getByRole("status").filter({ hasText: /checks in/ });
  await expect(summary).toContainText("quality: 1 finding (oracle-below-max)", { timeout: 150_000 });

  const section = page.getByRole("region", {
    name: /Environment quality of math\/test: 10 of 200 tasks \(seed 1\)/,
  });
  await expect(section).toBeVisible();
  const sampled = section.getByRole("definition").first();
  await expect(sampled).toHaveText("1, 59, 89, 106, 124, 125, 146, 193, 196, 199");
  await expect(section).toContainText("the oracle (script math-oracle.ts): 10 episodes");

  const checks = section.getByRole("list", { name: "Quality checks" });
  await expect(checks.locator(":scope > li")).toHaveCount(6);
  for (const id of ["answer-leak", "nondeterministic", "trivial-reward", "no-reward", "tool-crash"])
    await expect(checks.getByRole("listitem").filter({ hasText: id }).first()).toContainText("Passed");
  const evidence = section.getByRole("list", { name: "Evidence of oracle-below-max" });
  await expect(evidence.getByRole("listitem")).toHaveCount(1);
  await expect(evidence).toContainText("task 125");
  await expect(evidence).toContainText('submit {"answer":');
  await expect(evidence).toContainText("the oracle got 0, the best seen is 1");

  await page.screenshot({ path: "test-results/check-quality.png", fullPage: true });
  await section.screenshot({ path: "test-results/check-quality-section.png" });

  await evidence.getByRole("link", { name: "Open episode of task 125" }).click();
  await expect(page).toHaveURL(/\/trajectories\/[\w-]+\?step=1$/);
  // The oracle's missed answer, at the step the finding named.
  await expect(page.getByRole("heading", { name: "Step 1: submit" })).toBeVisible();
  await expect(page.getByText(/^Incorrect\. The answer was \d+\.$/)).toBeVisible();
});
