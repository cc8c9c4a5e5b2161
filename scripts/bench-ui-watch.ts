// The watching part of `npm run bench:ui`'s huge outputs: tabs that follow an episode while another
// client (here node, through the relay, as an agent would) gets a 50 MiB `dump` result — the episode
// page open in a second tab, and `/live` → the episode's trajectory page — then a reload of each once
// the step is recorded. Per case: when the step showed, the longest main-thread block (PerformanceObserver
// `longtask` and `long-animation-frame`, installed before the page's scripts) and the tab's memory.
import fs from "node:fs";
import path from "node:path";
import type { Browser, CDPSession, Page } from "@playwright/test";
import { AUTH, appContext } from "./bench-ui-auth";
import {
  BLOCK_OBSERVER,
  type Blocks,
  openBigoutput,
  readBlocks,
  shownWithin,
  verdictTable,
} from "./bench-ui-huge";

export interface WatchFigure {
  what: string;
  /** ms from the result's end (watching) or from the navigation's start (reload) to the step shown. */
  shownMs: number | null;
  longestTaskMs: number;
  longTasks: number;
  over200: number;
  /** The longest long animation frame (script, style, layout and paint of one frame). */
  longestFrameMs: number;
  /** The main thread's JS heap after a forced garbage collection, MiB. */
  heapMiB: number | null;
  /** Resident memory of the browser's renderer processes (the tab and its worker), MiB. */
  rendererMiB: number | null;
  error?: string;
}

/** Where each view shows the step's output (present once the output is drawn). */
const EPISODE_OUTPUT =
  'article[aria-label="Step 1: dump"] section[aria-label="Output of step 1"] [data-block-type]';
const TRAJECTORY_OUTPUT = 'article[aria-label="Step 1"] section[aria-label="Observation"] [data-block-type]';

/** The page's clock when `selector` first matches something with text (checked every frame). */
async function shownAt(page: Page, selector: string, timeoutMs: number): Promise<number | null> {
  try {
    const h = await page.waitForFunction(
      (sel) => {
        const el = document.querySelector(sel);
        return el && (el.textContent ?? "").length > 0 ? performance.now() : 0;
      },
      selector,
      { polling: "raf", timeout: timeoutMs },
    );
    return Number(await h.jsonValue());
  } catch (err) {
    if (!/Timeout/.test(String(err))) throw err;
    return null;
  }
}

/** Sums the resident memory of this process's Chromium renderers (from /proc). */
function rendererRss(): number | null {
  try {
    const parent = new Map<number, number>();
    for (const d of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
        parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      } catch {}
    }
    const ours = (pid: number) => {
      for (let p = parent.get(pid); p; p = parent.get(p)) if (p === process.pid) return true;
      return false;
    };
    let kb = 0;
    for (const pid of parent.keys()) {
      if (!ours(pid)) continue;
      try {
        if (!fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("--type=renderer")) continue;
        const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
        kb += m ? Number(m[1]) : 0;
      } catch {}
    }
    return Math.round(kb / 1024);
  } catch {
    return null;
  }
}

async function memory(page: Page): Promise<{ heapMiB: number | null; rendererMiB: number | null }> {
  try {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("HeapProfiler.collectGarbage");
    const { usedSize } = (await cdp.send("Runtime.getHeapUsage")) as { usedSize: number };
    await cdp.detach();
    return { heapMiB: Math.round(usedSize / 1048576), rendererMiB: rendererRss() };
  } catch {
    return { heapMiB: null, rendererMiB: rendererRss() };
  }
}

function figure(what: string, shownMs: number | null, b: Blocks, mem: Awaited<ReturnType<typeof memory>>) {
  return {
    what,
    shownMs: shownMs === null ? null : Math.round(Math.max(0, shownMs)),
    longestTaskMs: b.longestTaskMs,
    longTasks: b.longTasks,
    over200: b.over200,
    longestFrameMs: b.longestFrameMs,
    ...mem,
  };
}

/**
 * A Chromium CPU profile of the page's main thread (`--cpu-profile <dir>`): started before the
 * call or the reload, written as `<name>.cpuprofile` (Chrome DevTools' Performance panel reads it)
 * once the step has shown.
 */
async function startProfile(page: Page): Promise<CDPSession> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
  await cdp.send("Profiler.start");
  return cdp;
}

async function stopProfile(cdp: CDPSession | null, dir: string | undefined, name: string): Promise<void> {
  if (!cdp || !dir) return;
  const { profile } = (await cdp.send("Profiler.stop")) as { profile: unknown };
  await cdp.detach().catch(() => {});
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.cpuprofile`);
  fs.writeFileSync(file, JSON.stringify(profile));
  console.log(`cpu profile: ${file}`);
}

/** Calls `dump` through the relay as an outside client and reads its whole answer. */
async function callDump(base: string, headers: Record<string, string>, size: number): Promise<void> {
  const r = await fetch(`${base}/api/servers/local/bigoutput/call`, {
    method: "POST",
    headers: { ...headers, accept: "text/event-stream" },
    body: JSON.stringify({ name: "dump", input: { size } }),
  });
  if (!r.ok || !r.body) throw new Error(`call answered ${r.status}`);
  const reader = r.body.getReader();
  while (!(await reader.read()).done) {}
}

export const VIEWS = ["episode", "live"] as const;
export type View = (typeof VIEWS)[number];

/**
 * One watcher: open the view, let another client make the call, time the step on the page, then
 * reload the page and time it again. Two figures: watching, and the reload.
 */
async function watchOnce(
  browser: Browser,
  base: string,
  view: View,
  size: number,
  timeoutMs: number,
  profile?: { dir: string; name: string },
): Promise<WatchFigure[]> {
  const ep = await openBigoutput(base);
  const found = (await (
    await fetch(`${base}/api/trajectories/by-session/local/${encodeURIComponent(ep.sid)}`, { headers: AUTH })
  ).json()) as { id: string };
  const ctx = await appContext(browser, base, { viewport: { width: 1400, height: 900 } });
  await ctx.addInitScript(BLOCK_OBSERVER);
  const page = await ctx.newPage();
  const name = view === "episode" ? "episode page" : "`/live` → trajectory page";
  const output = view === "episode" ? EPISODE_OUTPUT : TRAJECTORY_OUTPUT;
  try {
    if (view === "episode") {
      await page.goto(`${base}/s/local/e/bigoutput/episode/${ep.sid}`, { timeout: 60_000 });
      await page.getByRole("radio", { name: "dump", exact: true }).waitFor({ timeout: 60_000 });
    } else {
      await page.goto(`${base}/live`, { timeout: 60_000 });
      await page.locator(`a[href="/trajectories/${found.id}"]`).click({ timeout: 60_000 });
      await page.getByText("watching live").waitFor({ timeout: 60_000 });
    }
    await page.waitForTimeout(1000);
    const from = await page.evaluate(() => performance.now());
    let cdp = profile ? await startProfile(page) : null;
    const call = callDump(base, ep.headers, size);
    const shown = await shownAt(page, output, timeoutMs);
    await call;
    const t = (await (
      await fetch(`${base}/api/trajectories/${encodeURIComponent(found.id)}`, { headers: AUTH })
    ).json()) as { steps: { ended_at: number | null }[] };
    // The step's end on the server's clock, brought to the page's (same machine).
    const endedAt = t.steps[0]?.ended_at ?? null;
    const offset = await page.evaluate(() => Date.now() - performance.now());
    const afterEnd = shown !== null && endedAt !== null ? shown + offset - endedAt : null;
    if (shown !== null) await page.waitForTimeout(1000);
    await stopProfile(cdp, profile?.dir, `${profile?.name}-${view}-watching`);
    const watching = figure(`watching: ${name}`, afterEnd, await readBlocks(page, from), await memory(page));
    cdp = profile ? await startProfile(page) : null;
    await page.reload({ timeout: 60_000 });
    const again = await shownAt(page, output, timeoutMs);
    if (again !== null) await page.waitForTimeout(1000);
    await stopProfile(cdp, profile?.dir, `${profile?.name}-${view}-reload`);
    const reload = figure(`reload: ${name}`, again, await readBlocks(page, 0), await memory(page));
    return [watching, reload];
  } finally {
    await ctx.close();
    await fetch(`${base}/api/servers/local/delete`, { method: "POST", headers: ep.headers }).catch(() => {});
  }
}

function failed(what: string, err: unknown): WatchFigure {
  return {
    what,
    shownMs: null,
    longestTaskMs: 0,
    longTasks: 0,
    over200: 0,
    longestFrameMs: 0,
    heapMiB: null,
    rendererMiB: null,
    error: (err as Error).message.split("\n")[0],
  };
}

/** The watching cases (episode page, `/live` → trajectory page), `runs` times each. */
export async function measureWatchers(
  browser: Browser,
  base: string,
  o: {
    runs: number;
    mib: number;
    timeoutMs: number;
    /** Only these views (default both). */
    views?: readonly View[];
    /** Write a CPU profile of each case into this folder, named after `profileName`. */
    profileDir?: string;
    profileName?: string;
  },
): Promise<WatchFigure[]> {
  const out: WatchFigure[] = [];
  for (const view of o.views ?? VIEWS) {
    for (let i = 0; i < o.runs; i++) {
      console.log(`huge outputs: ${o.mib} MiB watched on the ${view} view, run ${i + 1} …`);
      const profile = o.profileDir
        ? { dir: o.profileDir, name: `${o.profileName ?? "run"}-${Date.now()}` }
        : undefined;
      try {
        out.push(...(await watchOnce(browser, base, view, o.mib * 1024 * 1024, o.timeoutMs, profile)));
      } catch (err) {
        out.push(failed(`watching: ${view}`, err));
      }
    }
  }
  return out;
}

/** The figures as a Markdown table (the worst run counts: no block over 200 ms). */
export function watchReport(figures: WatchFigure[], timeoutMs: number): { lines: string[]; ok: boolean } {
  const header = [
    "Case",
    "Step shown (watching: after the result's end; reload: after navigation)",
    "Longest main-thread task",
    "Longest animation frame",
    "Long tasks (≥ 200 ms)",
    "JS heap after GC",
    "Renderer RSS",
    "No block over 200 ms",
  ];
  const mib = (x: number | null) => (x === null ? "n/a" : `${x} MiB`);
  return verdictTable(header, figures, (f) => ({
    pass: !f.error && f.shownMs !== null && f.longestTaskMs <= 200,
    cells: [
      f.what,
      f.error ? `error: ${f.error}` : shownWithin(f.shownMs, timeoutMs),
      `**${f.longestTaskMs} ms**`,
      `${f.longestFrameMs} ms`,
      `${f.longTasks} (${f.over200})`,
      mib(f.heapMiB),
      mib(f.rendererMiB),
    ],
  }));
}
