// The episode page as the specs drive it: started from its new-episode page, its prompt, its steps,
// and the tool forms (picking a tool, what a call sent, a step the server accepted). Locators by
// role and label, as the page names its parts.
import { expect, type Locator, type Page } from "@playwright/test";

export interface StartEpisode {
  /** The server's name in the app (default `local`, the built-in host). */
  server?: string;
  env: string;
  split?: string;
  index?: number;
  /** Another app's origin (a spec's own server); default: the configured baseURL. */
  base?: string;
}

export class EpisodePage {
  constructor(readonly page: Page) {}

  /** The new-episode page's URL for a task. */
  static newUrl({ server = "local", env, split = "train", index = 0, base = "" }: StartEpisode): string {
    return `${base}/s/${server}/e/${env}/episode/new?split=${split}&task=${index}`;
  }

  /**
   * Opens the new-episode page of a task, presses "Start episode" and waits for the episode's own
   * URL. What the episode shows first (its prompt, the reward) is for the caller to await.
   */
  static async start(page: Page, o: StartEpisode): Promise<EpisodePage> {
    const { server = "local", env } = o;
    await page.goto(EpisodePage.newUrl(o));
    await expect(page.getByRole("heading", { level: 1, name: "Start an episode" })).toBeVisible();
    await page.getByRole("button", { name: "Start episode" }).click();
    await expect(page).toHaveURL(new RegExp(`/s/${server}/e/${env}/episode/(?!new)[^/?]+$`));
    return new EpisodePage(page);
  }

  /** The session id, from the episode's URL. */
  get sid(): string {
    return decodeURIComponent(this.page.url().split("/").pop()!);
  }

  get prompt(): Locator {
    return this.page.getByRole("region", { name: "Prompt" });
  }

  /** The reward figure every running episode shows. */
  get cumulativeReward(): Locator {
    return this.page.getByText("Cumulative reward");
  }

  /** Step n's card in the episode's list of steps. */
  step(n: number, tool: string): Locator {
    return this.page.getByRole("article", { name: `Step ${n}: ${tool}` });
  }

  /** Picks a tool; returns its panel once its form (or its single button) is there. */
  async pickTool(tool: string): Promise<Locator> {
    await this.page.getByRole("radio", { name: tool, exact: true }).click();
    const panel = this.page.getByRole("region", { name: `Call ${tool}` });
    await expect(panel.getByRole("button", { name: `Call ${tool}` })).toBeVisible();
    return panel;
  }

  /** The output of step n, once the server answered it with a result (not an error). */
  async accepted(n: number, tool: string): Promise<Locator> {
    const card = this.step(n, tool);
    await expect(card.getByText("ok", { exact: true })).toBeVisible();
    const output = card.getByRole("region", { name: `Output of step ${n}` });
    await expect(output).not.toContainText("validation error");
    return output;
  }

  /** Runs `act` (a click or a key that calls `tool`) and returns the input the page sent to the server. */
  async sentInput(tool: string, act: () => Promise<void>): Promise<Record<string, unknown>> {
    const request = this.page.waitForRequest(
      (r) => r.method() === "POST" && r.url().endsWith("/call") && r.postDataJSON()?.name === tool,
    );
    await act();
    return (await request).postDataJSON().input;
  }
}
