// The runs' pages as the specs read them (a run's results and the list), and the model fixture the
// runs and the model controls play against (tests/fixtures/model-server, the app's endpoint
// `fixture`, on E2E_MODEL_PORT).
import { expect, type Locator, type Page } from "@playwright/test";

export const MODEL_FIXTURE = `http://127.0.0.1:${Number(process.env.E2E_MODEL_PORT ?? 8197)}`;

/** Makes every answer of the model fixture wait `delayMs` (0: at once). */
export async function modelDelay(delayMs: number): Promise<void> {
  const res = await fetch(`${MODEL_FIXTURE}/__fixture/fail`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ failures: [], delayMs }),
  });
  expect(res.ok).toBe(true);
}

/** Puts the model fixture back as it starts (no failures, no delay). */
export async function resetModelFixture(): Promise<void> {
  await fetch(`${MODEL_FIXTURE}/__fixture/reset`, { method: "POST" });
}

export class RunPage {
  constructor(readonly page: Page) {}

  static async open(page: Page, id: string): Promise<RunPage> {
    await page.goto(`/runs/${encodeURIComponent(id)}`);
    return new RunPage(page);
  }

  /** The run's status badge (`Running`, `Done`, `Cancelled`, ...). */
  status(label: string): Locator {
    return this.page.getByLabel(`Status: ${label}`);
  }

  /** A figure of a card's list of terms (`Success rate` → its value). */
  figure(card: string, term: string): Locator {
    return this.page
      .getByRole("heading", { name: card, exact: true })
      .locator("xpath=ancestor::div[contains(@class,'rounded-lg')][1]")
      .locator("dl > div")
      .filter({ has: this.page.locator("dt", { hasText: new RegExp(`^${term}$`, "i") }) })
      .locator("dd");
  }
}

export class RunsPage {
  constructor(readonly page: Page) {}

  static async open(page: Page): Promise<RunsPage> {
    await page.goto("/runs");
    return new RunsPage(page);
  }

  /** The row of a run in the list. */
  row(id: string): Locator {
    return this.page.getByRole("row").filter({ has: this.page.getByRole("link", { name: `Run ${id}` }) });
  }

  /** The checkbox that picks a run for comparing. */
  selectToCompare(id: string): Locator {
    return this.page.getByRole("checkbox", { name: `Select run ${id} to compare` });
  }

  get modelEndpoints(): Locator {
    return this.page.getByRole("table", { name: "Model endpoints" });
  }
}
