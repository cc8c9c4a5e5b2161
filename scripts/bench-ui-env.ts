// bench:ui's cold environment page (bench-ui.ts): navigation to `/s/local/e/math` in a fresh browser
// context → its tool cards visible, by the page's own clock. A script installed before the page's
// own watches every animation frame from the document's start, so a card that arrives in the HTML
// counts from its first frame, not from when the bench gets round to asking.
import type { Browser } from "@playwright/test";
import { appContext } from "./bench-ui-auth";

export type EnvCardsRun = {
  /** Navigation start → the first tool card laid out (non-zero size), ms. */
  cardsMs: number;
  /** Navigation start → the first ORS request the browser made for the page's data (-1: none). */
  firstDataRequestMs: number;
  /** Requests the browser made for the tools/splits/num_tasks (0 when the HTML carried them). */
  dataRequests: number;
};

declare global {
  interface Window {
    __toolCardsAt?: number;
  }
}

// A string, not a function: tsx's compiled functions call a helper that the page does not have.
const WATCH_CARDS = `
  (function check() {
    const card = document.querySelector('section[aria-labelledby^="tool-"]');
    const box = card && card.getBoundingClientRect();
    if (box && box.width > 0 && box.height > 0) window.__toolCardsAt = performance.now();
    else requestAnimationFrame(check);
  })();
`;

/** The env page's data requests through the relay (the tool list, splits and task counts). */
const DATA_REQUEST = /\/api\/servers\/[^/]+\/(list_environments|[^/]+\/(tools|splits|num_tasks))$/;

export async function envCardsOnce(browser: Browser, base: string, route: string, timeoutMs: number) {
  const ctx = await appContext(browser, base);
  const page = await ctx.newPage();
  try {
    await page.addInitScript(WATCH_CARDS);
    const res = await page.goto(base + route, { waitUntil: "commit", timeout: timeoutMs });
    if (!res || res.status() >= 400) throw new Error(`${route} answered ${res?.status()}`);
    const at = await page.waitForFunction(() => window.__toolCardsAt ?? 0, undefined, {
      polling: 50,
      timeout: timeoutMs,
    });
    const cardsMs = Math.round(Number(await at.jsonValue()));
    // Let the page's own requests (if any) go out before counting them.
    await page.waitForLoadState("load", { timeout: timeoutMs });
    await page.waitForTimeout(500);
    const starts = await page.evaluate(
      (re) =>
        (performance.getEntriesByType("resource") as PerformanceResourceTiming[])
          .filter((e) => new RegExp(re).test(new URL(e.name).pathname))
          .map((e) => e.startTime),
      DATA_REQUEST.source,
    );
    return {
      cardsMs,
      firstDataRequestMs: starts.length ? Math.round(Math.min(...starts)) : -1,
      dataRequests: starts.length,
    } satisfies EnvCardsRun;
  } finally {
    await ctx.close();
  }
}
