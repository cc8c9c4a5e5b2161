// Pages as a browser loads them (Chromium): the app's icon answers on every page, and a Markdown
// prompt is laid out from the first paint: never shown raw (`##`, `|---`) and never moving once
// shown (layout-shift entries and the prompt's box, observed from before the page's own scripts).
import { expect, type Page, test } from "@playwright/test";
import { relaySession, trajectoryOf } from "./trajectories-helpers";

test("/favicon.ico exists, and no page asks for an icon that is missing", async ({ page, request }) => {
  const ico = await request.get("/favicon.ico");
  expect(ico.status()).toBe(200);
  expect(ico.headers()["content-type"]).toMatch(/^image\/(x-icon|vnd\.microsoft\.icon)/);
  const body = await ico.body();
  expect([...body.subarray(0, 4)]).toEqual([0, 0, 1, 0]); // an ICO file
  const missing: string[] = [];
  page.on("response", (r) => {
    if (r.status() === 404) missing.push(r.url());
  });
  for (const path of ["/", "/trajectories", "/live", "/s/local/e/math"]) {
    await page.goto(path);
    await expect(page.locator('link[rel="icon"]').first()).toBeAttached();
  }
  expect(missing).toEqual([]);
});

const MARKDOWN_PROMPT = [
  "## The question",
  "",
  "| a | b |",
  "|---|---|",
  "| 2 | 2 |",
  "",
  "**Add** them, then:",
  "- call `submit`",
  "- with the sum",
].join("\n");

/** Watches the prompt from the document's first parse: raw Markdown seen, its box as first shown, shifts. */
const WATCH_PROMPT = `
  window.__prompt = { raw: false, first: null, shifts: [] };
  const look = () => {
    const el = document.querySelector('section[aria-labelledby="episode-prompt-title"]') ||
      [...document.querySelectorAll("details")].find((d) => d.querySelector("summary")?.textContent === "Prompt");
    if (!el) return;
    const text = el.textContent || "";
    if (text.includes("|---") || /(^|\\n)## /.test(text)) window.__prompt.raw = true;
    if (!window.__prompt.first && text.includes("The question")) {
      const r = el.getBoundingClientRect();
      window.__prompt.first = { top: r.top + scrollY, height: r.height };
    }
  };
  new MutationObserver(look).observe(document, { subtree: true, childList: true, characterData: true });
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries())
        for (const s of e.sources || []) {
          const n = s.node && (s.node.nodeType === 1 ? s.node : s.node.parentElement);
          if (n && n.closest && n.closest('[aria-labelledby="episode-prompt-title"]')) window.__prompt.shifts.push(e.value);
        }
    }).observe({ type: "layout-shift", buffered: true });
  } catch {}
`;

async function promptWatch(page: Page) {
  return page.evaluate(() => {
    const w = (
      window as unknown as {
        __prompt: { raw: boolean; first: { top: number; height: number } | null; shifts: number[] };
      }
    ).__prompt;
    const el = document.querySelector('section[aria-labelledby="episode-prompt-title"]');
    const r = el?.getBoundingClientRect();
    return { ...w, now: r ? { top: r.top + scrollY, height: r.height } : null };
  });
}

test("a Markdown prompt is rendered on the server: laid out at first paint, never raw, never moving", async ({
  page,
  baseURL,
}) => {
  const { ors, sid } = await relaySession(baseURL!, "local", "math", {
    task_spec: { question: MARKDOWN_PROMPT, answer: "4" },
  });
  const t = await trajectoryOf(baseURL!, "local", sid);

  await page.addInitScript(WATCH_PROMPT);
  await page.goto(`/s/local/e/math/episode/${sid}`);
  const prompt = page.getByRole("region", { name: "Prompt" });
  await expect(prompt.getByRole("heading", { name: "The question" })).toBeVisible();
  await expect(prompt.getByRole("table")).toBeVisible();
  // The page has read the record and opened its form: everything that could move has moved.
  await expect(page.getByRole("button", { name: "Call submit" })).toBeVisible();
  await page.waitForLoadState("networkidle");
  const w = await promptWatch(page);
  expect(w.raw, "raw Markdown was on the page").toBe(false);
  expect(w.shifts).toEqual([]);
  expect(w.first).not.toBeNull();
  expect(w.now).toEqual(w.first);

  // The trajectory page of an episode with no steps opens its prompt at once: rendered there too.
  const page2 = await page.context().newPage();
  await page2.addInitScript(WATCH_PROMPT);
  await page2.goto(`/trajectories/${t.id}`);
  await expect(page2.getByRole("table")).toBeVisible();
  expect((await promptWatch(page2)).raw).toBe(false);
  await page2.close();
  await ors.delete(sid);
});
