// An environment's page as the specs browse it: its tabs (tools, tasks), a task's row and JSON, and
// the links that start an episode or a run from it.
import { expect, type Locator, type Page } from "@playwright/test";

/**
 * Resolves once React has hydrated the element (it keeps its props on the node then). The page's
 * HTML arrives with its data (rendered on the server), so a link is on screen before hydration; a
 * click in between can be lost, as a click on any server-rendered control can.
 */
export async function hydrated(el: Locator): Promise<Locator> {
  await expect
    .poll(() => el.evaluate((node) => Object.keys(node).some((k) => k.startsWith("__reactProps$"))), {
      message: "the element is hydrated",
    })
    .toBe(true);
  return el;
}

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
    const opened = new EnvironmentPage(page);
    await hydrated(opened.tab(/^Tools/));
    return opened;
  }

  tab(name: string | RegExp): Locator {
    return this.page.getByRole("tab", { name });
  }

  /** The link to compare this environment with another server's. */
  compareLink(): Locator {
    return this.page.getByRole("link", { name: "Compare with…" });
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

  /** Clicks the selected task's "Start episode" once it is hydrated. */
  async startEpisode(): Promise<void> {
    await (await hydrated(this.startEpisodeLink)).click();
  }

  get startRunLink(): Locator {
    return this.page.getByRole("link", { name: "Start a run" });
  }
}
