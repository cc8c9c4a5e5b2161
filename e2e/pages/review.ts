// The review and baseline pages as the specs drive them: the review page's forms, a reviewer's
// queue, the agreement report, a share link's play page, a leaderboard. Locators by role and label,
// as the pages name their parts; the API calls a spec sets up with.
import { expect, type Locator, type Page } from "@playwright/test";

/** A JSON request to the app's API (Node's fetch carries the suite's token to loopback). */
export async function api<T>(base: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** A run of the `math` oracle script (answers wrong on tasks that are multiples of 5), played to its end. */
export async function oracleRun(base: string, split: string, tasks: string): Promise<string> {
  const { id } = await api<{ id: string }>(base, "POST", "/api/runs", {
    server: "local",
    env: "math",
    split,
    tasks,
    policy: { kind: "script", module: "tests/runs/fixtures/math-oracle.ts" },
  });
  await expect
    .poll(async () => (await api<{ status: string }>(base, "GET", `/api/runs/${id}`)).status, {
      timeout: 30_000,
    })
    .toBe("done");
  return id;
}

/** The right answer of a `math` task. */
export async function mathAnswer(base: string, split: string, index: number): Promise<string> {
  const r = await api<{ task: { answer: string } }>(base, "POST", "/api/servers/local/math/task", {
    split,
    index,
  });
  return r.task.answer;
}

export class ReviewQueuePage {
  constructor(readonly page: Page) {}

  static async open(page: Page, queueId: string, reviewer: string): Promise<ReviewQueuePage> {
    await page.goto(`/review/${encodeURIComponent(queueId)}?reviewer=${encodeURIComponent(reviewer)}`);
    const p = new ReviewQueuePage(page);
    await expect(p.position).toBeVisible();
    return p;
  }

  /** "Episode i of n". */
  get position(): Locator {
    return this.page
      .getByRole("navigation", { name: "Episodes of the queue" })
      .getByText(/^Episode \d+ of \d+$/);
  }

  get progress(): Locator {
    return this.page.getByTestId("review-progress");
  }

  /** The task index of the episode shown (from its prompt card). */
  async taskIndex(): Promise<number> {
    const text = await this.page
      .getByText(/ \/ task \d+$/)
      .first()
      .textContent();
    return Number(/task (\d+)$/.exec(text ?? "")![1]);
  }

  /** The quick choice button (`correct: yes`), with its key. */
  choice(label: string): Locator {
    return this.page
      .getByRole("group", { name: "Quick choices" })
      .getByRole("button", { name: new RegExp(`${label}$`) });
  }

  step(n: number): Locator {
    return this.page.getByRole("article", { name: `Step ${n}` });
  }
}

export class AgreementPage {
  constructor(readonly page: Page) {}

  static async open(page: Page, queueId: string): Promise<AgreementPage> {
    await page.goto(`/review/${encodeURIComponent(queueId)}/agreement`);
    const p = new AgreementPage(page);
    await expect(p.matrix).toBeVisible();
    return p;
  }

  get matrix(): Locator {
    return this.page.getByRole("table", { name: /^Confusion matrix/ });
  }

  /** A cell's button (`false positives`), named with its count. */
  cell(name: string): Locator {
    return this.matrix.getByRole("button", { name: new RegExp(`\\(${name}\\): \\d+ episodes$`) });
  }
}

export class PlayPage {
  constructor(readonly page: Page) {}

  get name(): Locator {
    return this.page.getByLabel("Your name");
  }

  /** The task card's heading (`Task 2 of 3`). */
  task(i: number, n: number): Locator {
    return this.page.getByRole("heading", { name: `Task ${i} of ${n}` });
  }

  /** Answers the shown `math` task through the episode's tool form; resolves when the step is recorded. */
  async answer(text: string): Promise<void> {
    await this.page.getByLabel("answer").fill(text);
    await this.page.getByRole("button", { name: "Call submit" }).click();
    await expect(this.page.getByRole("article", { name: "Step 1: submit" })).toBeVisible();
  }
}
