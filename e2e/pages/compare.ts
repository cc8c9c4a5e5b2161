// The compare view as the specs use it (/s/<server>/e/<env>/compare): choose the other server and
// environment, compare, and read the verdict and the table's rows.
import type { Locator, Page } from "@playwright/test";

export class ComparePage {
  constructor(readonly page: Page) {}

  /** Chooses the other side and asks for the diff. */
  async compareWith(server: string, env: string): Promise<void> {
    await this.page.getByLabel("Server", { exact: true }).selectOption(server);
    const envs = this.page.getByLabel("Environment", { exact: true });
    await envs.locator(`option[value="${env}"]`).waitFor({ state: "attached" });
    await envs.selectOption(env);
    await this.page.getByRole("button", { name: "Compare", exact: true }).click();
  }

  get verdict(): Locator {
    return this.page.getByTestId("diff-verdict");
  }

  get table(): Locator {
    return this.page.getByRole("region", { name: "Surface diff" }).getByRole("table");
  }

  /** The table's row of a change, by its words. */
  row(change: string | RegExp): Locator {
    return this.table.getByRole("row").filter({ hasText: change });
  }
}
