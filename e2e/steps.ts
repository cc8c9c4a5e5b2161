// Small steps the e2e specs share: one element shows each of several texts, in any order
// (Playwright's own `toContainText` with an array matches a list of elements instead), a form
// filled from a table of label → value, and a download started by a click.
import fs from "node:fs";
import { type Download, expect, type Locator, type Page } from "@playwright/test";

/** Expects `locator` to contain each of `texts`: one expectation each, so a failure names the text. */
export async function expectContains(locator: Locator, texts: (string | RegExp)[]): Promise<void> {
  for (const text of texts) await expect(locator).toContainText(text);
}

/** Fills the fields of `scope` labelled by the keys of `values` with their values, in that order. */
export async function fillByLabel(scope: Locator, values: Record<string, string>): Promise<void> {
  for (const [label, value] of Object.entries(values)) await scope.getByLabel(label).fill(value);
}

/** Clicks `control` (a link or button that downloads a file) and returns the download. */
export async function downloadBy(control: Locator): Promise<Download> {
  const [download] = await Promise.all([control.page().waitForEvent("download"), control.click()]);
  return download;
}

/** The lines of a downloaded JSONL file, each parsed. */
export async function jsonlOf<T = Record<string, unknown>>(download: Download): Promise<T[]> {
  return fs
    .readFileSync((await download.path())!, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as T);
}

/**
 * Resolves once the page has loaded and its main thread went idle: hydration is done and the
 * effects it ran have started their requests. What an absence check (no refetch after hydration)
 * waits for, instead of a fixed time.
 */
export async function settled(page: Page): Promise<void> {
  await page.waitForLoadState("load");
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        // Two frames (the commit and its effects), then the first idle moment.
        requestAnimationFrame(() =>
          requestAnimationFrame(() => requestIdleCallback(() => resolve(), { timeout: 5000 })),
        );
      }),
  );
}
