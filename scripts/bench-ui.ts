// `npm run bench:ui`: the UI's budgets (first-load JS, time to an interactive tool form, task ranges
// fetched), measured on a production build served by
// `next start` on a free loopback port (started and stopped here by PID), with headless Chromium:
//   1. first-load JS per page: every script Chromium downloads before the page's load event, as
//      transferred (gzip, as `next start` serves it) — ≤ 200 kB each;
//   2. navigation → interactive tool form of an open `math` episode (the `submit` form's `answer`
//      field and its Call button enabled) — ≤ 250 ms, median of cold runs (fresh browser context);
//      warm runs and the click-through from the new-episode page are reported beside it;
//   2b. navigation → visible tool cards on a cold environment page (`/s/local/e/math`) — ≤ 700 ms,
//      median of three cold runs (fresh browser context each);
//   3. `task_range` requests when the 100,000-task `bigsplit` list is scrolled to its end;
//   4. huge outputs on a live episode page (bench-ui-huge.ts): a 50 MiB text result and a step of
//      a dozen ~1 MB images — the step shown ≤ 3 s after the result's end, no main-thread block
//      over 200 ms; and the 50 MiB result in tabs that watch the episode, then reloaded
//      (bench-ui-watch.ts).
// Prints the tables with PASS/FAIL per budget and writes them to scripts/BENCH-UI.md.
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type Browser, chromium } from "@playwright/test";
import { anyFreeLoopbackPort } from "./bench-proc";
import { run, startNext, stopGroup, waitForHealth } from "./bench-ui-app";
import { AUTH, appContext, closeEpisode, openEpisode, TOKEN } from "./bench-ui-auth";
import { type EnvCardsRun, envCardsOnce } from "./bench-ui-env";
import {
  clickThroughOnce,
  episodeFormOnce,
  type Series,
  STEP_TIMEOUT_MS,
  series,
  stats,
} from "./bench-ui-form";
import { type HugeFigure, hugeReport, measureHugeOutputs } from "./bench-ui-huge";
import { measureWatchers, VIEWS, type WatchFigure, watchReport } from "./bench-ui-watch";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const JS_BUDGET_KB = 200;
const FORM_BUDGET_MS = 250;
const ENV_CARDS_BUDGET_MS = 700;
const ENV_CARDS_RUNS = 3;
const ENV_ROUTE = "/s/local/e/math";

const USAGE = `Usage: npm run bench:ui -- [options]
  --no-build            reuse the existing build in the dist dir (default: run next build first)
  --dist-dir <dir>      Next build directory (default $NEXT_DIST_DIR or .next-bench-ui)
  --port <n>            loopback port for next start (default: a free one picked by the OS)
  --runs <n>            timed runs per tool-form figure (default 7, at least 5 recommended)
  --chromium <path>     Chromium executable (default $CHROMIUM_PATH or /usr/bin/chromium)
  --only <parts>        measure only these parts, comma-separated: js, form, env, scroll, huge (default
                        all); huge includes watch (the watching tabs and reloads alone)
  --huge-mib <n>        size of the huge text result in MiB (default 50)
  --huge-images <n>     images of ~1 MiB in the image step (default 12)
  --huge-runs <n>       runs of each huge-output case (default 3)
  --huge-timeout <s>    give up waiting for a huge step after this many seconds (default 300)
  --before <dir>        another checkout of the app (the revision to compare with), built into the
                        same dist dir: the huge-output cases run on its server and on this one in
                        turn, in the same run, each row labelled "before" or "after"
  --watch-views <v>     the watching views: episode, live (default both)
  --cpu-profile <dir>   write a Chromium CPU profile of the main thread per watching case into <dir>
                        (open it in Chrome DevTools, Performance panel)
  --no-write            do not write scripts/BENCH-UI.md`;

const { values: args } = parseArgs({
  options: {
    "no-build": { type: "boolean", default: false },
    "dist-dir": { type: "string" },
    port: { type: "string" },
    runs: { type: "string", default: "7" },
    chromium: { type: "string" },
    "no-write": { type: "boolean", default: false },
    only: { type: "string" },
    "huge-mib": { type: "string", default: "50" },
    "huge-images": { type: "string", default: "12" },
    "huge-runs": { type: "string", default: "3" },
    "huge-timeout": { type: "string", default: "300" },
    before: { type: "string" },
    "watch-views": { type: "string" },
    "cpu-profile": { type: "string" },
    help: { type: "boolean", default: false },
  },
});
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
const distDir = args["dist-dir"] ?? process.env.NEXT_DIST_DIR ?? ".next-bench-ui";
const runs = Math.min(50, Math.max(1, Number(args.runs) || 7));
const chromiumPath = args.chromium ?? process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ALL_PARTS = ["js", "form", "env", "scroll", "huge"];
const parts = new Set((args.only ?? ALL_PARTS.join(",")).split(",").map((p) => p.trim()));
const huge = {
  mib: Math.max(1, Number(args["huge-mib"]) || 50),
  images: Math.min(24, Math.max(1, Number(args["huge-images"]) || 12)),
  runs: Math.min(20, Math.max(1, Number(args["huge-runs"]) || 3)),
  timeoutMs: Math.max(10, Number(args["huge-timeout"]) || 300) * 1000,
  views: args["watch-views"]
    ? VIEWS.filter((v) => args["watch-views"]!.split(",").some((w) => w.trim() === v))
    : undefined,
  profileDir: args["cpu-profile"] ? path.resolve(args["cpu-profile"]) : undefined,
};

/** A free loopback port: the given one, else one the OS hands out. */
async function pickPort(): Promise<number> {
  return args.port ? Number(args.port) : anyFreeLoopbackPort();
}

// ---- Episodes through the relay (plain fetch from node) ----

/** A small finished run (random inputs on 5 math tasks) for the runs pages; its id. */
async function finishedRun(base: string, seed: number): Promise<string> {
  const r = await fetch(`${base}/api/runs`, {
    method: "POST",
    headers: { ...AUTH, "content-type": "application/json" },
    body: JSON.stringify({
      server: "local",
      env: "math",
      split: "test",
      tasks: "0-4",
      policy: { kind: "random", seed, maxTurns: 2 },
    }),
  });
  if (r.status !== 201) throw new Error(`POST /api/runs answered ${r.status}: ${await r.text()}`);
  const { id } = (await r.json()) as { id: string };
  for (let i = 0; i < 300; i++) {
    const s = (await (await fetch(`${base}/api/runs/${id}`, { headers: AUTH })).json()) as { status: string };
    if (s.status !== "running" && s.status !== "queued") return id;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`run ${id} did not finish within 30 s`);
}

// ---- 1. First-load JS ----

type ScriptLoad = { url: string; startMs: number; transferKb: number; rawKb: number };
type JsFigure = {
  page: string;
  status: number;
  /** Scripts requested before the load event (the budget figure). */
  first: ScriptLoad[];
  /** Scripts requested after it, until the page settled (chunks loaded on demand, prefetches). */
  later: ScriptLoad[];
  loadMs: number;
};

const sumKb = (xs: ScriptLoad[], k: "transferKb" | "rawKb") => xs.reduce((n, x) => n + x[k], 0);

/** Every script the page downloads, split at the load event (browser resource timing). */
async function firstLoadJs(browser: Browser, base: string, route: string): Promise<JsFigure> {
  const ctx = await appContext(browser, base);
  const page = await ctx.newPage();
  try {
    const res = await page.goto(base + route, { waitUntil: "load", timeout: STEP_TIMEOUT_MS });
    // Let the page settle: no new resource for 1 s (at most 10 s).
    const count = () => page.evaluate(() => performance.getEntriesByType("resource").length);
    for (let seen = -1, t = Date.now(); Date.now() - t < 10_000; ) {
      const n = await count();
      if (n === seen) break;
      seen = n;
      await new Promise((r) => setTimeout(r, 1000));
    }
    const timing = await page.evaluate(() => {
      const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
      return {
        load: nav.loadEventStart,
        scripts: (performance.getEntriesByType("resource") as PerformanceResourceTiming[])
          .filter((e) => /\.m?js(\?|$)/.test(new URL(e.name).pathname) || e.initiatorType === "script")
          .map((e) => ({
            url: e.name,
            startMs: e.startTime,
            transferKb: e.encodedBodySize / 1024,
            rawKb: e.decodedBodySize / 1024,
          })),
      };
    });
    return {
      page: route,
      status: res?.status() ?? 0,
      first: timing.scripts.filter((s) => s.startMs < timing.load),
      later: timing.scripts.filter((s) => s.startMs >= timing.load),
      loadMs: timing.load,
    };
  } finally {
    await ctx.close();
  }
}

// ---- 2. Navigation → interactive tool form ----

type FormFigures = { cold: Series; warm: Series; click: Series; clickReady: number[] };

async function toolFormFigures(browser: Browser, base: string): Promise<FormFigures> {
  // Server-side warm-up (first renders, route modules): not part of what a visitor waits for.
  await clickThroughOnce(browser, base, ROOT).catch((err) =>
    console.warn(`warm-up: ${(err as Error).message}`),
  );
  console.log("tool form: cold (fresh browser context per run) …");
  const cold = await series(runs, async () => {
    const ctx = await appContext(browser, base);
    try {
      return await episodeFormOnce(ctx, base, ROOT);
    } finally {
      await ctx.close();
    }
  });
  console.log("tool form: warm (one context, its HTTP cache primed by a first visit) …");
  const ctx = await appContext(browser, base);
  let warm: Series;
  try {
    await episodeFormOnce(ctx, base, ROOT);
    warm = await series(runs, () => episodeFormOnce(ctx, base, ROOT));
  } finally {
    await ctx.close();
  }
  console.log("tool form: click-through from the new-episode page (cold) …");
  const clickReady: number[] = [];
  const click = await series(runs, async () => {
    const [total, ready] = await clickThroughOnce(browser, base, ROOT);
    clickReady.push(ready);
    return total;
  });
  return { cold, warm, click, clickReady };
}

// ---- 3. The 100,000-task split ----

type ScrollFigure = { requests: number; ranges: string[]; lastVisible: boolean; ms: number };

async function scrollBigsplit(browser: Browser, base: string): Promise<ScrollFigure> {
  const ctx = await appContext(browser, base, { viewport: { width: 1400, height: 900 } });
  const page = await ctx.newPage();
  const ranges: string[] = [];
  page.on("request", (req) => {
    if (req.url().endsWith("/bigsplit/task_range")) {
      const b = JSON.parse(req.postData() ?? "{}") as { start?: number; stop?: number };
      ranges.push(`${b.start}–${b.stop}`);
    }
  });
  try {
    await page.goto(`${base}/s/local/e/bigsplit?tab=tasks&split=train`);
    await page
      .getByRole("link", { name: "Task 0", exact: true })
      .filter({ hasText: "Task #0:" })
      .waitFor({ timeout: STEP_TIMEOUT_MS });
    const t0 = Date.now();
    // Scroll the way a user drags: 40 steps from top to bottom, one per frame.
    await page.getByRole("region", { name: "Tasks of train" }).evaluate(async (el) => {
      for (let i = 1; i <= 40; i++) {
        el.scrollTop = (el.scrollHeight * i) / 40;
        await new Promise((r) => requestAnimationFrame(r));
      }
    });
    const last = page
      .getByRole("link", { name: "Task 99999", exact: true })
      .filter({ hasText: "Task #99999:" });
    let lastVisible = true;
    try {
      await last.waitFor({ state: "visible", timeout: STEP_TIMEOUT_MS });
    } catch {
      lastVisible = false;
    }
    return { requests: ranges.length, ranges, lastVisible, ms: Date.now() - t0 };
  } finally {
    await ctx.close();
  }
}

// ---- Main ----

async function trajectoryIds(base: string): Promise<string[]> {
  const r = await fetch(`${base}/api/trajectories`, { headers: AUTH });
  if (!r.ok) return [];
  const body = (await r.json()) as { items?: { id: string }[] };
  return (body.items ?? []).map((t) => t.id);
}

async function main() {
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_DIST_DIR: distDir, NEXT_TELEMETRY_DISABLED: "1" };
  if (!args["no-build"]) {
    console.log(`building (NEXT_DIST_DIR=${distDir}) …`);
    await run(path.join(ROOT, "node_modules", ".bin", "next"), ["build"], env, ROOT);
  } else if (!fs.existsSync(path.join(ROOT, distDir, "BUILD_ID"))) {
    throw new Error(
      `--no-build: no production build in ${distDir} (run next build with NEXT_DIST_DIR=${distDir})`,
    );
  }
  const port = await pickPort();
  const base = `http://127.0.0.1:${port}`;
  const server = startFresh(port, env, ROOT, "bench-ui");
  console.log(`next start (pid ${server.pid}) on ${base}`);
  const beforeServer = args.before ? await startBefore(path.resolve(args.before), env) : null;
  const onSignal = () => {
    void Promise.all([stopGroup(server), beforeServer && stopGroup(beforeServer.child)]).then(() =>
      process.exit(130),
    );
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  let browser: Browser | undefined;
  try {
    await waitForHealth(`${base}/api/ors/health`, server);
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
    });
    const js: JsFigure[] = [];
    if (parts.has("js")) {
      // Two recorded episodes (the relay records every episode) for the trajectory pages.
      const a = await openEpisode(base, "math", 0);
      const b = await openEpisode(base, "math", 1);
      const ids = await trajectoryIds(base);
      const runs = [await finishedRun(base, 1), await finishedRun(base, 2)];
      const routes = [
        "/",
        "/s/local",
        "/s/local/e/math",
        "/s/local/e/bigsplit?tab=tasks&split=train&task=12",
        "/s/local/e/math/episode/new?split=train&task=0",
        `/s/local/e/math/episode/${a.sid}`,
        "/trajectories",
        ids[0] ? `/trajectories/${ids[0]}` : "/trajectories/<none recorded>",
        ids[1] ? `/trajectories/compare?a=${ids[0]}&b=${ids[1]}` : "/trajectories/compare",
        "/live",
        "/runs",
        "/runs/new?server=local&env=math",
        `/runs/${runs[0]}`,
        `/runs/compare?a=${runs[0]}&b=${runs[1]}`,
      ];
      console.log("first-load JS …");
      for (const r of routes) {
        // Server-side warm-up (first render of each route), not timed.
        const p = await (await appContext(browser, base)).newPage();
        await p.goto(base + r).catch(() => undefined);
        await p.context().close();
      }
      for (const r of routes) js.push(await firstLoadJs(browser, base, r));
      await closeEpisode(base, a);
      await closeEpisode(base, b);
    }
    const form = parts.has("form") ? await toolFormFigures(browser, base) : null;
    let envCards: EnvCardsRun[] | null = null;
    if (parts.has("env")) {
      console.log("environment page: cold navigation → tool cards visible …");
      // Server-side warm-up (the route's first render), not timed.
      await envCardsOnce(browser, base, ENV_ROUTE, STEP_TIMEOUT_MS).catch(() => undefined);
      envCards = [];
      for (let i = 0; i < ENV_CARDS_RUNS; i++)
        envCards.push(await envCardsOnce(browser, base, ENV_ROUTE, STEP_TIMEOUT_MS));
    }
    let scroll: ScrollFigure | null = null;
    if (parts.has("scroll")) {
      console.log("scrolling bigsplit …");
      scroll = await scrollBigsplit(browser, base);
    }
    const targets = [{ label: "", base }];
    if (beforeServer) {
      await waitForHealth(`${beforeServer.base}/api/ors/health`, beforeServer.child);
      targets.unshift({ label: "before", base: beforeServer.base });
      targets[1]!.label = "after";
    }
    const huges = await measureHuge(browser, targets);
    report(js, form, envCards, scroll, huges, port);
  } finally {
    await browser?.close();
    await stopGroup(server);
    if (beforeServer) await stopGroup(beforeServer.child);
  }
}

/**
 * `next start` of the build under `root` on `port`, with the bench's token and an emptied data
 * folder `.data/<dataName>`.
 */
function startFresh(port: number, env: NodeJS.ProcessEnv, root: string, dataName: string): ChildProcess {
  const dataDir = path.join(ROOT, ".data", dataName);
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.mkdirSync(dataDir, { recursive: true });
  return startNext(
    port,
    { ...env, PLAYGROUND_DATA_DIR: dataDir, NODE_ENV: "production", PLAYGROUND_TOKEN: TOKEN },
    root,
  );
}

/** The server of the `--before` checkout, on its own port and data folder, with the same token. */
async function startBefore(
  root: string,
  env: NodeJS.ProcessEnv,
): Promise<{ base: string; child: ChildProcess }> {
  if (!fs.existsSync(path.join(root, distDir, "BUILD_ID")))
    throw new Error(`--before: no production build in ${path.join(root, distDir)}`);
  const port = await anyFreeLoopbackPort();
  const child = startFresh(port, env, root, "bench-ui-before");
  console.log(`--before: ${root} (pid ${child.pid}) on http://127.0.0.1:${port}`);
  return { base: `http://127.0.0.1:${port}`, child };
}

/** The huge-output parts on each target (this build, and the `--before` one), run after run in turn. */
async function measureHuge(
  browser: Browser,
  targets: { label: string; base: string }[],
): Promise<{ huge: HugeFigure[] | null; watch: WatchFigure[] | null }> {
  const calling = parts.has("huge");
  const watching = parts.has("huge") || parts.has("watch");
  const out = { huge: calling ? ([] as HugeFigure[]) : null, watch: watching ? ([] as WatchFigure[]) : null };
  const labelled = <T extends { what: string }>(label: string, xs: T[]) =>
    xs.map((x) => (label ? { ...x, what: `${label}: ${x.what}` } : x));
  for (let r = 0; r < huge.runs; r++) {
    for (const t of targets) {
      const once = { ...huge, runs: 1, profileName: t.label || "this" };
      if (out.huge) out.huge.push(...labelled(t.label, await measureHugeOutputs(browser, t.base, once)));
      if (out.watch) out.watch.push(...labelled(t.label, await measureWatchers(browser, t.base, once)));
    }
  }
  return out;
}

const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");

function seriesCell(x: Series): string {
  if (!x.runs.length) return `no run succeeded (${x.failures.join("; ")})`;
  const s = stats(x.runs);
  return `median **${s.median} ms**, min ${s.min}, max ${s.max} (runs: ${x.runs.join(", ")})${x.failures.length ? `; ${x.failures.length} failed: ${x.failures.join("; ")}` : ""}`;
}

function shortName(route: string): string {
  return route
    .replace(/\/episode\/[0-9a-f-]{36}/, "/episode/<sid>")
    .replace(/^\/trajectories\/(?!compare)[^/?]+/, "/trajectories/<id>")
    .replace(/^\/runs\/(?!compare|new)[^/?]+/, "/runs/<id>")
    .replace(/=[A-Za-z0-9_-]{8,}/g, "=<id>");
}

function report(
  js: JsFigure[],
  form: FormFigures | null,
  envCards: EnvCardsRun[] | null,
  scroll: ScrollFigure | null,
  huges: { huge: HugeFigure[] | null; watch: WatchFigure[] | null },
  port: number,
) {
  const hugeFigures = huges.huge;
  const rows: string[] = [
    "| Page | HTTP | Scripts before `load` | raw (kB) | **gzip, transferred (kB)** | ≤ 200 kB | Later (on demand, until idle): scripts, gzip kB |",
    "|---|---|---|---|---|---|---|",
  ];
  let jsOk = true;
  for (const f of js) {
    const kb = sumKb(f.first, "transferKb");
    const ok = f.status < 400 && kb <= JS_BUDGET_KB;
    jsOk &&= ok;
    rows.push(
      `| \`${shortName(f.page)}\` | ${f.status} | ${f.first.length} | ${sumKb(f.first, "rawKb").toFixed(1)} | ${kb.toFixed(1)} | ${f.status < 400 ? verdict(ok) : "FAIL (page missing)"} | ${f.later.length}, ${sumKb(f.later, "transferKb").toFixed(1)} |`,
    );
  }
  const maxJs = Math.max(0, ...js.map((f) => sumKb(f.first, "transferKb")));
  const cold = form?.cold.runs.length ? stats(form.cold.runs) : null;
  const formOk = cold !== null && cold.median <= FORM_BUDGET_MS;
  const scrollOk = !!scroll && scroll.lastVisible && scroll.requests <= 6;
  const cards = envCards?.length ? stats(envCards.map((r) => r.cardsMs)) : null;
  const cardsOk = cards !== null && cards.median <= ENV_CARDS_BUDGET_MS;
  const figures = ["| Figure | Value | Budget |", "|---|---|---|"];
  if (form)
    figures.push(
      `| **Tool form, cold**: navigation to an open episode (\`/s/local/e/math/episode/<sid>\`, created through the relay) → \`submit\`'s \`answer\` field and Call button enabled; fresh browser context per run | ${seriesCell(form.cold)} | ≤ ${FORM_BUDGET_MS} ms (median): ${verdict(formOk)} |`,
      `| Tool form, warm: the same in one browser context (HTTP cache primed) | ${seriesCell(form.warm)} | (info) |`,
      `| Click-through, cold: navigation to \`/s/local/e/math/episode/new?split=train&task=0\` → "Start episode" enabled and hydrated → click (session, /create, /prompt) → episode page → form interactive | ${seriesCell(form.click)}; of which until "Start episode" clickable: ${form.clickReady.join(", ")} ms | (info) |`,
    );
  if (envCards)
    figures.push(
      `| **Environment page, cold**: navigation to \`${ENV_ROUTE}\` → first tool card laid out (page's clock, every frame from the document's start); fresh browser context per run | median **${cards?.median} ms**, min ${cards?.min}, max ${cards?.max} (runs: ${envCards.map((r) => r.cardsMs).join(", ")}); data requests from the browser: ${envCards.map((r) => (r.dataRequests ? `${r.dataRequests} (first at ${r.firstDataRequestMs} ms)` : "0")).join(", ")} | ≤ ${ENV_CARDS_BUDGET_MS} ms (median of ${ENV_CARDS_RUNS}): ${verdict(cardsOk)} |`,
    );
  if (scroll)
    figures.push(
      `| \`task_range\` requests scrolling \`bigsplit\` (100,000 tasks) to its end in 40 steps | ${scroll.requests} (${scroll.ranges.join(", ")}); task 99999 ${scroll.lastVisible ? "visible" : "NOT visible"} after ${scroll.ms} ms | only visible ranges: ${verdict(scrollOk)} |`,
    );
  const hugeOut = hugeFigures ? hugeReport(hugeFigures, huge.timeoutMs) : null;
  const watchOut = huges.watch ? watchReport(huges.watch, huge.timeoutMs) : null;
  const summary = [
    js.length
      ? `- First-load JS ≤ ${JS_BUDGET_KB} kB gzip on every page: **${verdict(jsOk)}** (largest ${maxJs.toFixed(1)} kB)`
      : "",
    form
      ? `- Navigation → interactive tool form ≤ ${FORM_BUDGET_MS} ms: **${verdict(formOk)}** (cold median ${cold?.median ?? "n/a"} ms, max ${cold?.max ?? "n/a"} ms)`
      : "",
    envCards
      ? `- Cold environment page → visible tool cards ≤ ${ENV_CARDS_BUDGET_MS} ms: **${verdict(cardsOk)}** (median ${cards?.median ?? "n/a"} ms of ${envCards.length})`
      : "",
    scroll
      ? `- 100,000-task split fetches only visible ranges: **${verdict(scrollOk)}** (${scroll.requests} task_range requests)`
      : "",
    hugeOut
      ? `- Huge outputs (${huge.mib} MiB text, ${huge.images} images of ~1 MiB): step shown ≤ 3 s after the result's end, no main-thread block over 200 ms: **${verdict(hugeOut.ok)}**`
      : "",
    watchOut
      ? `- A ${huge.mib} MiB result watched from another tab (the episode page, \`/live\` → trajectory page) and each page reloaded: no main-thread block over 200 ms: **${verdict(watchOut.ok)}**`
      : "",
  ].filter(Boolean);
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" / ");
  const out = [
    ...summary,
    ...(js.length ? ["", ...rows] : []),
    ...(figures.length > 2 ? ["", ...figures] : []),
    ...(hugeOut ? ["", ...hugeOut.lines] : []),
    ...(watchOut ? ["", ...watchOut.lines] : []),
  ].join("\n");
  console.log(`\n${out}\n\nload average at the end: ${load}\n`);
  if (args["no-write"]) return;
  if (ALL_PARTS.some((p) => !parts.has(p))) {
    console.log("scripts/BENCH-UI.md not written: only some parts were measured (--only)");
    return;
  }
  const md = [
    "# UI benchmark (`npm run bench:ui`)",
    "",
    `Measured ${new Date().toISOString()} by \`npm run bench:ui -- ${process.argv.slice(2).join(" ")}\` on this`,
    `machine (${process.platform}, ${os.cpus().length} cores, load average ${load} at the end — other work`,
    `shares the CPU, so times vary), node ${process.version}, production build (\`next build\`, dist dir`,
    `\`${distDir}\`) served by \`next start\` on 127.0.0.1:${port}, headless Chromium (${chromiumPath}).`,
    "",
    "How it measures:",
    "- **First-load JS** = every script Chromium downloads whose request starts before the page's `load` event",
    "  (browser resource timing), as transferred: gzip, as `next start` serves it. Nothing is left out; Next's",
    "  `noModule` polyfill chunk is not in it because Chromium (a module browser) never requests it. The last",
    "  column lists what the page fetches after `load` (chunks loaded on demand: the ORS client, the form,",
    "  Markdown; link prefetches). Fresh browser context (cold cache) per page.",
    "- **Tool form**: an episode on `math` train/0 is opened through the relay from node (`create_session`,",
    "  `create`), then the page is opened and timed by its own clock (`performance.now()`, from the start",
    "  of the navigation, checked every animation frame) until the `submit` form's `answer` field and its",
    "  Call button are both enabled. Cold = fresh browser context per run; warm = one context whose cache",
    "  a first visit primed. The server was warmed up by one click-through before timing.",
    "- **Environment page**: `/s/local/e/math` opened in a fresh browser context, timed by the page's clock",
    "  (a script installed before the page's own checks every animation frame from the document's start)",
    "  until the first tool card is laid out; the browser's own data requests (tools, splits, num_tasks)",
    "  are counted beside it. One untimed visit first warms the route up on the server.",
    "- **Huge outputs**: an episode on `bigoutput` is opened through the relay; on its page, `dump` is",
    "  called with a 50 MiB `size` and `pictures` with 12 images of 1024 KiB, through the JSON tab.",
    "  Timed from the result's end (the recorded step's `ended_at`) to its output drawn on the page (the",
    "  page's clock, every animation frame), and the longest main-thread task from the click to a second",
    "  after (PerformanceObserver `longtask`, installed before the page's scripts). Worst of the runs counts.",
    "- **Watching a huge output**: an episode on `bigoutput` open in a tab (its episode page, or `/live` then",
    "  its trajectory page) while node calls `dump` (50 MiB) through the relay; the step's output drawn",
    "  (after the result's end), the longest long task and long animation frame from the call to a second",
    "  after, the tab's JS heap after a forced GC and its renderers' RSS; then the page reloaded, timed the",
    "  same way from the navigation's start.",
    "",
    out,
    "",
  ].join("\n");
  // Hand-written notes (history, analysis) from "## Notes" on are kept across runs.
  const file = path.join(ROOT, "scripts", "BENCH-UI.md");
  const previous = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  const notesAt = previous.indexOf("\n## Notes");
  fs.writeFileSync(file, notesAt >= 0 ? `${md}${previous.slice(notesAt)}` : md);
  console.log("wrote scripts/BENCH-UI.md");
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
