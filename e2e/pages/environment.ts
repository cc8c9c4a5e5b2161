// An environment's page as the specs browse it: its tabs (tools, tasks), a task's row and JSON, and
// the links that start an episode or a run from it.
import type { Locator, Page } from "@playwright/test";

export interface EnvironmentView {
  tab?: "tools" | "tasks";
  split?: string;
  task?: number;
}

export class EnvironmentPage {
  constructor(readonly page: Page) {}

  static url(server: string, env: string, { tab, split, task }: EnvironmentView = {}): string {
    const q = new URLSearchParams();
    if (tab) q.set("tab", tab);
    if (split) q.set("split", split);
    if (task !== undefined) q.set("task", String(task));
    const query = q.toString();
    return `/s/${server}/e/${env}${query ? `?${query}` : ""}`;
  }

  static async open(
    page: Page,
    server: string,
    env: string,
    view: EnvironmentView = {},
  ): Promise<EnvironmentPage> {
    await page.goto(EnvironmentPage.url(server, env, view));
    return new EnvironmentPage(page);
  }

  tab(name: string | RegExp): Locator {
    return this.page.getByRole("tab", { name });
  }

  /** A task's row in the tasks tab. */
  taskRow(index: number): Locator {
    return this.page.getByRole("button", { name: `Task ${index}`, exact: true });
  }

  /** The selected task's JSON. */
  taskJson(index: number): Locator {
    return this.page.getByRole("region", { name: `Task ${index} JSON` });
  }

  get startEpisodeLink(): Locator {
    return this.page.getByRole("link", { name: "Start episode", exact: true });
  }

  get startRunLink(): Locator {
    return this.page.getByRole("link", { name: "Start a run" });
  }
}
