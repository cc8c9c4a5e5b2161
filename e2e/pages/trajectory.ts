// The trajectory pages as the specs read them: one trajectory (its steps' navigation, a step's
// heading and detail, its end reason and total reward) and the list with its search.
import { expect, type Locator, type Page } from "@playwright/test";

export class TrajectoryPage {
  constructor(readonly page: Page) {}

  /** Opens a trajectory, on a step when given (`?step=n`). */
  static async open(page: Page, id: string, o: { step?: number } = {}): Promise<TrajectoryPage> {
    await page.goto(`/trajectories/${encodeURIComponent(id)}${o.step ? `?step=${o.step}` : ""}`);
    return new TrajectoryPage(page);
  }

  /** The buttons of the steps' navigation, one per step. */
  get steps(): Locator {
    return this.page.getByRole("navigation", { name: "Steps" }).getByRole("button");
  }

  /** The heading of the step shown in the detail pane (`Step 2: stop`). */
  stepHeading(n: number, tool: string): Locator {
    return this.page.getByRole("heading", { name: `Step ${n}: ${tool}` });
  }

  /** The step shown in the detail pane. */
  stepDetail(n: number): Locator {
    return this.page.getByRole("article", { name: `Step ${n}`, exact: true });
  }

  /** Clicks step n in the navigation; returns its detail once shown. */
  async openStep(n: number): Promise<Locator> {
    await this.steps.nth(n - 1).click();
    await expect(this.stepDetail(n)).toBeVisible();
    return this.stepDetail(n);
  }

  /** The end reason's badge (`Running`, `Finished`, ...). */
  endReason(label: string): Locator {
    return this.page.getByLabel(`End reason: ${label}`);
  }

  get totalReward(): Locator {
    return this.page.getByTestId("total-reward");
  }
}

export class TrajectoriesPage {
  constructor(readonly page: Page) {}

  /** Opens the list, searched for `q` when given. */
  static async open(page: Page, o: { q?: string } = {}): Promise<TrajectoriesPage> {
    await page.goto(o.q ? `/trajectories?q=${encodeURIComponent(o.q)}` : "/trajectories");
    return new TrajectoriesPage(page);
  }

  get items(): Locator {
    return this.page.getByRole("list", { name: "Trajectories" }).getByRole("listitem");
  }
}
