// Small steps the e2e specs share: one element shows each of several texts, in any order
// (Playwright's own `toContainText` with an array matches a list of elements instead), and a form
// filled from a table of label → value.
import { expect, type Locator } from "@playwright/test";

/** Expects `locator` to contain each of `texts`: one expectation each, so a failure names the text. */
export async function expectContains(locator: Locator, texts: (string | RegExp)[]): Promise<void> {
  for (const text of texts) await expect(locator).toContainText(text);
}

/** Fills the fields of `scope` labelled by the keys of `values` with their values, in that order. */
export async function fillByLabel(scope: Locator, values: Record<string, string>): Promise<void> {
  for (const [label, value] of Object.entries(values)) await scope.getByLabel(label).fill(value);
}
