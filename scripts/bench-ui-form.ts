// bench:ui's tool form (bench-ui.ts, bench-ui-ab.ts): navigation to an open `math` episode → its
// `submit` form's `answer` field and Call button enabled, by the page's own clock; and the
// click-through from the new-episode page. Series of runs and their median.
import path from "node:path";
import type { Browser, BrowserContext, Page } from "@playwright/test";
import { appContext, closeEpisode, closeEpisodeOfPage, openEpisode } from "./bench-ui-auth";

export const STEP_TIMEOUT_MS = 30_000;

/** The `submit` tool form of the math episode: its `answer` field and its Call button. */
function submitForm(page: Page) {
  const region = page.getByRole("region", { name: "Call submit" });
  return {
    field: region.getByRole("textbox", { name: /answer/ }),
    button: region.getByRole("button", { name: "Call submit" }),
  };
}

/**
 * Waits until both the answer field and the Call button are enabled; returns when that happened, in
 * ms since the document's navigation started, by the page's own clock checked every animation frame
 * (Playwright's locator polling backs off to 100s of ms, which would blur the figure).
 */
export async function formInteractive(page: Page): Promise<number> {
  const at = await page.waitForFunction(
    () => {
      const region = document.querySelector('section[aria-label="Call submit"]');
      if (!region) return 0;
      const label = [...region.querySelectorAll("label")].find((l) =>
        /^\s*answer\b/.test(l.textContent ?? ""),
      );
      const field = label?.htmlFor
        ? document.getElementById(label.htmlFor)
        : region.querySelector("input, textarea");
      const button = [...region.querySelectorAll("button")].find(
        (b) => b.textContent?.trim() === "Call submit",
      );
      return field && button && !(field as HTMLInputElement).disabled && !button.disabled
        ? performance.now()
        : 0;
    },
    undefined,
    { polling: "raf", timeout: STEP_TIMEOUT_MS },
  );
  const ms = Math.round(Number(await at.jsonValue()));
  // What was timed, checked through the accessibility tree (role + accessible name).
  const { field, button } = submitForm(page);
  if (!(await field.isEnabled()) || !(await button.isEnabled()))
    throw new Error("the answer field or the Call button is not enabled by role and name");
  return ms;
}

/** Whether the page is still the document that `page.goto` loaded (client-side navigations only). */
export async function sameDocument(page: Page, path: string): Promise<boolean> {
  return page.evaluate((p) => (performance.getEntriesByType("navigation")[0]?.name ?? "").includes(p), path);
}

export async function failureShot(page: Page, what: string, err: unknown, root: string): Promise<Error> {
  const shot = path.join(root, ".data", "bench-ui", `${what}-failure-${Date.now()}.png`);
  await page.screenshot({ path: shot }).catch(() => undefined);
  return new Error(`${(err as Error).message.split("\n")[0]} (screenshot: ${shot})`);
}

/** One navigation to an open episode's page → its tool form interactive, in `ctx`. */
export async function episodeFormOnce(ctx: BrowserContext, base: string, root: string): Promise<number> {
  const ep = await openEpisode(base, "math");
  const page = await ctx.newPage();
  try {
    const t0 = Date.now();
    const res = await page.goto(`${base}/s/local/e/math/episode/${ep.sid}`, {
      waitUntil: "commit",
      timeout: STEP_TIMEOUT_MS,
    });
    if (!res || res.status() >= 400) throw new Error(`episode page answered ${res?.status()}`);
    const ms = await formInteractive(page);
    if (!(await sameDocument(page, ep.sid))) return Date.now() - t0;
    return ms;
  } catch (err) {
    throw await failureShot(page, "episode-form", err, root);
  } finally {
    await page.close();
    await closeEpisode(base, ep);
  }
}

/** New-episode page → "Start episode" enabled and hydrated → click → tool form interactive. */
export async function clickThroughOnce(
  browser: Browser,
  base: string,
  root: string,
): Promise<[number, number]> {
  const ctx = await appContext(browser, base);
  const page = await ctx.newPage();
  try {
    const t0 = Date.now();
    const res = await page.goto(`${base}/s/local/e/math/episode/new?split=train&task=0`, {
      waitUntil: "commit",
      timeout: STEP_TIMEOUT_MS,
    });
    if (!res || res.status() >= 400) throw new Error(`new-episode page answered ${res?.status()}`);
    const start = page.getByRole("button", { name: "Start episode", exact: true });
    await start.waitFor({ state: "visible", timeout: STEP_TIMEOUT_MS });
    // Enabled and hydrated (React has attached to it), so the click is not lost.
    const readyAt = await page.waitForFunction(
      (el) =>
        !!el &&
        !(el as HTMLButtonElement).disabled &&
        Object.keys(el).some((k) => k.startsWith("__reactFiber")) &&
        performance.now(),
      await start.elementHandle(),
      { polling: "raf", timeout: STEP_TIMEOUT_MS },
    );
    const ready = Math.round(Number(await readyAt.jsonValue()));
    await start.click();
    await page.waitForURL(/\/episode\/(?!new)[^/?]+/, { timeout: STEP_TIMEOUT_MS });
    const formAt = await formInteractive(page);
    // The episode page is reached by a client-side navigation: the page's clock still runs from the
    // new-episode page's navigation (else fall back to the wall clock).
    const total = (await sameDocument(page, "/episode/new")) ? formAt : Date.now() - t0;
    await closeEpisodeOfPage(base, page.url());
    return [total, ready];
  } catch (err) {
    throw await failureShot(page, "click-through", err, root);
  } finally {
    await ctx.close();
  }
}

export type Series = { runs: number[]; failures: string[] };
export async function series(n: number, once: () => Promise<number>): Promise<Series> {
  const out: Series = { runs: [], failures: [] };
  for (let i = 0; i < n; i++) {
    try {
      out.runs.push(await once());
    } catch (err) {
      out.failures.push((err as Error).message);
      console.warn(`  run ${i + 1} failed: ${(err as Error).message}`);
    }
  }
  return out;
}

export function stats(xs: number[]): { median: number; min: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid]! : Math.round((s[mid - 1]! + s[mid]!) / 2);
  return { median, min: s[0]!, max: s[s.length - 1]! };
}
