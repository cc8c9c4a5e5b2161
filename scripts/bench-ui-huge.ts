// The huge-output part of `npm run bench:ui`: a live episode page receiving a 50 MiB text result
// (bigoutput `dump`) and a step of a dozen ~1 MB images (bigoutput `pictures`). For each, in
// headless Chromium: the time from the result's end (the step's `ended_at`, recorded by the relay
// when the result's last frame passed; same machine, same clock) to the step shown on the page
// (its output region drawn, checked every animation frame by the page's own clock), and the longest
// main-thread block from the click to a second after that (a PerformanceObserver of `longtask`
// entries, installed before the page's own scripts). Budgets: ≤ 3 s and ≤ 200 ms.
import type { Browser, Page } from "@playwright/test";
import { AUTH, appContext, closeEpisode, type Episode, openEpisode } from "./bench-ui-auth";

export const HUGE_SHOWN_BUDGET_MS = 3000;
export const HUGE_BLOCK_BUDGET_MS = 200;

export interface HugeFigure {
  what: string;
  /** ms from the result's end to the step shown; null when it was not shown in time. */
  shownAfterEndMs: number | null;
  /** ms from the click to the step shown. */
  shownAfterClickMs: number | null;
  longestTaskMs: number;
  longTasks: number;
  /** Long tasks of 200 ms or more. */
  over200: number;
  /** What the stored step holds (the step-size cap cuts it). */
  stored: string;
  error?: string;
}

/** An episode of bigoutput with its prompt read, as the episode page finds it. */
export async function openBigoutput(base: string): Promise<Episode> {
  const ep = await openEpisode(base, "bigoutput");
  const p = await fetch(`${base}/api/servers/local/bigoutput/prompt`, { headers: ep.headers });
  if (!p.ok) throw new Error(`prompt answered ${p.status}`);
  return ep;
}

/**
 * Installed before the page's own scripts: records every long task (a main-thread task of 50 ms or
 * more) and every long animation frame (script, style, layout and paint of one frame, 50 ms or more).
 */
export const BLOCK_OBSERVER = `
  window.__blocks = { tasks: [], frames: [] };
  for (const [type, into] of [["longtask", "tasks"], ["long-animation-frame", "frames"]]) {
    try {
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__blocks[into].push({ start: e.startTime, duration: e.duration });
      }).observe({ type, buffered: true });
    } catch {}
  }
`;

export interface Blocks {
  longestTaskMs: number;
  longTasks: number;
  /** Long tasks of 200 ms or more. */
  over200: number;
  longestFrameMs: number;
}

/** The long tasks and frames that ended after `from` (the page's clock). */
export async function readBlocks(page: Page, from: number): Promise<Blocks> {
  type Entry = { start: number; duration: number };
  // No named functions inside: the page has no `__name` helper that tsx would call for them.
  const b = (await page.evaluate((f) => {
    const all = (window as unknown as { __blocks?: { tasks: Entry[]; frames: Entry[] } }).__blocks;
    return {
      tasks: (all?.tasks ?? []).filter((t) => t.start + t.duration >= f),
      frames: (all?.frames ?? []).filter((t) => t.start + t.duration >= f),
    };
  }, from)) as { tasks: Entry[]; frames: Entry[] };
  return {
    longestTaskMs: Math.round(Math.max(0, ...b.tasks.map((x) => x.duration))),
    longTasks: b.tasks.length,
    over200: b.tasks.filter((x) => x.duration >= 200).length,
    longestFrameMs: Math.round(Math.max(0, ...b.frames.map((x) => x.duration))),
  };
}

/** One huge step: open the page, call `tool` with `input` through its JSON tab, time it. */
async function hugeOnce(
  browser: Browser,
  base: string,
  what: string,
  tool: string,
  input: Record<string, unknown>,
  timeoutMs: number,
): Promise<HugeFigure> {
  const ep = await openBigoutput(base);
  const ctx = await appContext(browser, base, { viewport: { width: 1400, height: 900 } });
  await ctx.addInitScript(BLOCK_OBSERVER);
  const page = await ctx.newPage();
  try {
    await page.goto(`${base}/s/local/e/bigoutput/episode/${ep.sid}`, { timeout: 60_000 });
    await page.getByRole("radio", { name: tool, exact: true }).click({ timeout: 60_000 });
    const panel = page.getByRole("region", { name: `Call ${tool}` });
    await panel.getByRole("tab", { name: "JSON" }).click();
    const editor = panel.getByLabel(`Input JSON of ${tool}`);
    await editor.fill(JSON.stringify(input));
    const button = panel.getByRole("button", { name: `Call ${tool}` });
    await button.waitFor({ state: "visible" });
    // Settle, then start counting long tasks from the click.
    await page.waitForTimeout(500);
    const clickAt = await page.evaluate(() => performance.now());
    const clickWall = Date.now();
    await button.click();
    let shownWall: number | null = null;
    try {
      const h = await page.waitForFunction(
        (name) => {
          const step = document.querySelector(`article[aria-label="Step 1: ${name}"]`);
          const out = step?.querySelector('section[aria-label="Output of step 1"]');
          return out && (out.textContent ?? "").length > 0 ? Date.now() : 0;
        },
        tool,
        { polling: "raf", timeout: timeoutMs },
      );
      shownWall = Number(await h.jsonValue());
    } catch (err) {
      if (!/Timeout/.test(String(err))) throw err;
    }
    if (shownWall) await page.waitForTimeout(1000);
    const blocks = await readBlocks(page, clickAt);
    const t = (await (
      await fetch(`${base}/api/trajectories/by-session/local/${encodeURIComponent(ep.sid)}`, {
        headers: AUTH,
      })
    ).json()) as {
      steps: {
        ended_at: number | null;
        blocks: { type: string; text?: string }[];
        truncated?: { original_bytes: number; kept_bytes: number };
      }[];
    };
    const s = t.steps[0];
    const stored = s
      ? s.truncated
        ? `${(s.truncated.original_bytes / 1048576).toFixed(1)} MiB stored as ${(s.truncated.kept_bytes / 1048576).toFixed(1)} MiB (${s.blocks.filter((b) => b.type === "image").length} images, cap)`
        : `${s.blocks.length} blocks, whole`
      : "no step recorded";
    return {
      what,
      shownAfterEndMs: shownWall && s?.ended_at ? Math.max(0, shownWall - s.ended_at) : null,
      shownAfterClickMs: shownWall ? shownWall - clickWall : null,
      longestTaskMs: blocks.longestTaskMs,
      longTasks: blocks.longTasks,
      over200: blocks.over200,
      stored,
    };
  } finally {
    await ctx.close();
    await closeEpisode(base, ep);
  }
}

/** The two huge-output cases, `runs` times each. */
export async function measureHugeOutputs(
  browser: Browser,
  base: string,
  o: { runs: number; mib: number; images: number; timeoutMs: number },
): Promise<HugeFigure[]> {
  const cases: [string, string, Record<string, unknown>][] = [
    [`${o.mib} MiB text result (bigoutput dump)`, "dump", { size: o.mib * 1024 * 1024 }],
    [`${o.images} images of ~1 MiB (bigoutput pictures)`, "pictures", { count: o.images, kib: 1024 }],
  ];
  const out: HugeFigure[] = [];
  for (const [what, tool, input] of cases) {
    for (let i = 0; i < o.runs; i++) {
      console.log(`huge outputs: ${what}, run ${i + 1} …`);
      try {
        out.push(await hugeOnce(browser, base, what, tool, input, o.timeoutMs));
      } catch (err) {
        out.push({
          what,
          shownAfterEndMs: null,
          shownAfterClickMs: null,
          longestTaskMs: 0,
          longTasks: 0,
          over200: 0,
          stored: "",
          error: (err as Error).message.split("\n")[0],
        });
      }
    }
  }
  return out;
}

/**
 * A Markdown table with a verdict per figure: `header` names the columns (the verdict's last), `row`
 * gives a figure's cells and whether it passed; `ok` is whether every one did.
 */
export function verdictTable<F>(
  header: string[],
  figures: F[],
  row: (f: F) => { cells: string[]; pass: boolean },
): { lines: string[]; ok: boolean } {
  const lines = [`| ${header.join(" | ")} |`, `|${"---|".repeat(header.length)}`];
  let ok = true;
  for (const f of figures) {
    const { cells, pass } = row(f);
    ok &&= pass;
    lines.push(`| ${[...cells, pass ? "PASS" : "FAIL"].join(" | ")} |`);
  }
  return { lines, ok };
}

/** A time to a shown step, or that it was not shown before the time limit. */
export function shownWithin(ms: number | null, timeoutMs: number): string {
  return ms === null ? `not shown within ${timeoutMs / 1000} s` : `${ms} ms`;
}

/** The figures as a Markdown table with a verdict per case (the worst run counts). */
export function hugeReport(figures: HugeFigure[], timeoutMs: number): { lines: string[]; ok: boolean } {
  const header = [
    "Case",
    "Result's end → step shown",
    "Click → step shown",
    "Longest main-thread block",
    "Long tasks (≥ 200 ms)",
    "Stored step",
    "Budget (≤ 3 s, ≤ 200 ms)",
  ];
  return verdictTable(header, figures, (f) => ({
    pass:
      !f.error &&
      f.shownAfterEndMs !== null &&
      f.shownAfterEndMs <= HUGE_SHOWN_BUDGET_MS &&
      f.longestTaskMs <= HUGE_BLOCK_BUDGET_MS,
    cells: [
      f.what,
      f.error ? `error: ${f.error}` : shownWithin(f.shownAfterEndMs, timeoutMs),
      shownWithin(f.shownAfterClickMs, timeoutMs),
      `**${f.longestTaskMs} ms**`,
      `${f.longTasks} (${f.over200})`,
      f.stored,
    ],
  }));
}
