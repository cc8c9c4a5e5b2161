// `npm run bench:ui:ab -- --baseline <dir>`: bench:ui's page figures for two builds measured in turn,
// in one run on this machine — a baseline checkout (the code before a change, with its own build)
// and this one — so what a change did is told apart from the load other work puts on the CPU. Each
// round measures both, in alternating order: the cold tool form (navigation → `submit`'s field and
// Call button enabled, and the CPU time Chromium's renderer processes spent until then: steadier
// than the wall clock on a shared machine), the
// cold environment page's tool cards, and early clicks: the environment page's Tasks tab and the
// new-episode page's "Start episode" clicked as soon as they are painted (before React has hydrated
// them, on a busy machine), each either working or lost. Prints a Markdown table.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type Browser, chromium, type Page } from "@playwright/test";
import { anyFreeLoopbackPort } from "./bench-proc";
import { startNext, stopGroup, waitForHealth } from "./bench-ui-app";
import { appContext, closeEpisode, closeEpisodeOfPage, openEpisode, TOKEN } from "./bench-ui-auth";
import { envCardsOnce } from "./bench-ui-env";
import { formInteractive, STEP_TIMEOUT_MS, stats } from "./bench-ui-form";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** How long an early click may take to show its effect before it counts as lost. */
const EARLY_CLICK_LIMIT_MS = 15_000;

const USAGE = `Usage: npm run bench:ui:ab -- --baseline <dir> [options]
  --baseline <dir>           a checkout of the code to compare with (its node_modules and its build in place)
  --baseline-dist-dir <dir>  the baseline's Next build directory (default .next-bench-ui)
  --dist-dir <dir>           this checkout's build directory (default $NEXT_DIST_DIR or .next)
  --runs <n>                 rounds (default 7); each measures both builds
  --only <parts>             form, env, early (default all)
  --chromium <path>          Chromium executable (default $CHROMIUM_PATH or /usr/bin/chromium)`;

const { values: args } = parseArgs({
  options: {
    baseline: { type: "string" },
    "baseline-dist-dir": { type: "string", default: ".next-bench-ui" },
    "dist-dir": { type: "string" },
    runs: { type: "string", default: "7" },
    only: { type: "string", default: "form,env,early" },
    chromium: { type: "string" },
    help: { type: "boolean", default: false },
  },
});
if (args.help || !args.baseline) {
  console.log(USAGE);
  process.exit(args.help ? 0 : 2);
}
const rounds = Math.min(50, Math.max(1, Number(args.runs) || 7));
const parts = new Set(args.only.split(",").map((p) => p.trim()));

interface Side {
  label: string;
  root: string;
  distDir: string;
  base: string;
}

type Figures = Record<string, number[]>;
/** Early clicks per side: times of those that worked, and how many were lost. */
type Early = Record<string, { ms: number[]; lost: number }>;

async function startSide(label: string, root: string, distDir: string) {
  if (!fs.existsSync(path.join(root, distDir, "BUILD_ID")))
    throw new Error(
      `${label}: no production build in ${path.join(root, distDir)} (next build with NEXT_DIST_DIR=${distDir})`,
    );
  const port = await anyFreeLoopbackPort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-ui-ab-${label}-`));
  const env = {
    ...process.env,
    NEXT_DIST_DIR: distDir,
    NEXT_TELEMETRY_DISABLED: "1",
    NODE_ENV: "production",
    PLAYGROUND_DATA_DIR: dataDir,
    PLAYGROUND_TOKEN: TOKEN,
  } as NodeJS.ProcessEnv;
  const child = startNext(port, env, root);
  const side: Side = { label, root, distDir, base: `http://127.0.0.1:${port}` };
  await waitForHealth(`${side.base}/api/ors/health`, child);
  return {
    side,
    stop: () => stopGroup(child).then(() => fs.rmSync(dataDir, { recursive: true, force: true })),
  };
}

/** CPU seconds of Chromium's renderer processes so far (the browser's own process info). */
async function rendererCpu(browser: Browser): Promise<number> {
  const cdp = await browser.newBrowserCDPSession();
  try {
    const { processInfo } = (await cdp.send("SystemInfo.getProcessInfo")) as {
      processInfo: { type: string; id: number; cpuTime: number }[];
    };
    return processInfo.filter((p) => p.type === "renderer").reduce((n, p) => n + p.cpuTime, 0);
  } finally {
    await cdp.detach();
  }
}

/** Cold tool form: navigation → interactive (ms, page clock) and the renderers' CPU time until then. */
async function formOnce(browser: Browser, side: Side): Promise<{ ms: number; cpuMs: number }> {
  const ep = await openEpisode(side.base, "math");
  const ctx = await appContext(browser, side.base);
  try {
    const page = await ctx.newPage();
    const cpu0 = await rendererCpu(browser);
    const res = await page.goto(`${side.base}/s/local/e/math/episode/${ep.sid}`, {
      waitUntil: "commit",
      timeout: STEP_TIMEOUT_MS,
    });
    if (!res || res.status() >= 400) throw new Error(`episode page answered ${res?.status()}`);
    const ms = await formInteractive(page);
    return { ms, cpuMs: Math.round(((await rendererCpu(browser)) - cpu0) * 1000) };
  } finally {
    await ctx.close();
    await closeEpisode(side.base, ep);
  }
}

/** Time from navigation to `done`, by the page's clock; null when it does not come within the limit (the click was lost). */
async function afterEarlyClick(page: Page, done: () => Promise<unknown>): Promise<number | null> {
  try {
    await done();
    return Math.round(await page.evaluate(() => performance.now()));
  } catch {
    return null;
  }
}

/** The environment page's Tasks tab, clicked as soon as it is painted → the split's task count shown. */
async function tasksTabEarly(browser: Browser, side: Side): Promise<number | null> {
  const ctx = await appContext(browser, side.base);
  try {
    const page = await ctx.newPage();
    await page.goto(`${side.base}/s/local/e/math`, { waitUntil: "commit", timeout: STEP_TIMEOUT_MS });
    await page.getByRole("tab", { name: "Tasks" }).click({ timeout: STEP_TIMEOUT_MS });
    return await afterEarlyClick(page, () =>
      page.getByText(/800 tasks in/).waitFor({ timeout: EARLY_CLICK_LIMIT_MS }),
    );
  } finally {
    await ctx.close();
  }
}

/** "Start episode" clicked as soon as it is painted → the episode's tool form interactive. */
async function startEarly(browser: Browser, side: Side): Promise<number | null> {
  const ctx = await appContext(browser, side.base);
  try {
    const page = await ctx.newPage();
    await page.goto(`${side.base}/s/local/e/math/episode/new?split=train&task=0`, {
      waitUntil: "commit",
      timeout: STEP_TIMEOUT_MS,
    });
    await page
      .getByRole("button", { name: "Start episode", exact: true })
      .click({ timeout: STEP_TIMEOUT_MS });
    const ms = await afterEarlyClick(page, async () => {
      await page.waitForURL(/\/episode\/(?!new)[^/?]+$/, { timeout: EARLY_CLICK_LIMIT_MS });
      await formInteractive(page);
    });
    await closeEpisodeOfPage(side.base, page.url());
    return ms;
  } finally {
    await ctx.close();
  }
}

async function round(browser: Browser, side: Side, figures: Figures, early: Early): Promise<void> {
  const put = (k: string, v: number) => {
    figures[`${k}:${side.label}`] ??= [];
    figures[`${k}:${side.label}`]!.push(v);
  };
  if (parts.has("form")) {
    const f = await formOnce(browser, side);
    put("form", f.ms);
    put("formCpu", f.cpuMs);
  }
  if (parts.has("env"))
    put("env", (await envCardsOnce(browser, side.base, "/s/local/e/math", STEP_TIMEOUT_MS)).cardsMs);
  if (parts.has("early")) {
    for (const [k, once] of [
      ["tasks", tasksTabEarly],
      ["start", startEarly],
    ] as const) {
      const ms = await once(browser, side);
      early[`${k}:${side.label}`] ??= { ms: [], lost: 0 };
      if (ms === null) early[`${k}:${side.label}`]!.lost++;
      else early[`${k}:${side.label}`]!.ms.push(ms);
    }
  }
}

function cell(xs: number[] | undefined): string {
  if (!xs?.length) return "—";
  const s = stats(xs);
  return `median **${s.median} ms** (runs: ${xs.join(", ")})`;
}

function earlyCell(e: { ms: number[]; lost: number } | undefined): string {
  if (!e) return "—";
  const n = e.ms.length + e.lost;
  return `worked ${e.ms.length} of ${n}${e.ms.length ? `, median **${stats(e.ms).median} ms** (${e.ms.join(", ")})` : ""}`;
}

function table(figures: Figures, early: Early, load: [string, string]): string {
  // One row per figure: its label, then the baseline's and this build's cell.
  const figure = (label: string, key: string): [string, string, string] => [
    label,
    cell(figures[`${key}:before`]),
    cell(figures[`${key}:after`]),
  ];
  const click = (label: string, key: string): [string, string, string] => [
    label,
    earlyCell(early[`${key}:before`]),
    earlyCell(early[`${key}:after`]),
  ];
  const rows: [string, string, string][] = [];
  if (parts.has("form"))
    rows.push(
      figure("**Tool form, cold**: navigation → `submit`'s field and Call button enabled", "form"),
      figure("Tool form, cold: CPU time of Chromium's renderer processes until then", "formCpu"),
    );
  if (parts.has("env")) rows.push(figure("Environment page, cold → first tool card laid out", "env"));
  if (parts.has("early"))
    rows.push(
      click("**Early click**: the Tasks tab clicked when painted → the task count shown", "tasks"),
      click(
        '**Early click**: "Start episode" clicked when painted → the episode\'s tool form interactive',
        "start",
      ),
    );
  return [
    `${rounds} rounds, each measuring both builds in turn (order alternating); load average ${load[0]} at the start, ${load[1]} at the end (${os.cpus().length} cores, shared).`,
    "",
    "| Figure | before (baseline) | after (this build) |",
    "|---|---|---|",
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");
}

async function main() {
  const loadNow = () =>
    os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" / ");
  const startLoad = loadNow();
  const before = await startSide("before", path.resolve(args.baseline!), args["baseline-dist-dir"]);
  const after = await startSide(
    "after",
    ROOT,
    args["dist-dir"] ?? process.env.NEXT_DIST_DIR ?? ".next",
  ).catch(async (err) => {
    await before.stop();
    throw err;
  });
  const browser = await chromium.launch({
    executablePath: args.chromium ?? process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  const figures: Figures = {};
  const early: Early = {};
  try {
    // Warm-up (the routes' first renders on each server), not counted.
    for (const s of [before.side, after.side]) await round(browser, s, {}, {}).catch(() => undefined);
    for (let i = 0; i < rounds; i++) {
      const order = i % 2 ? [after.side, before.side] : [before.side, after.side];
      for (const s of order) await round(browser, s, figures, early);
      console.log(`round ${i + 1} of ${rounds} done`);
    }
    console.log(`\n${table(figures, early, [startLoad, loadNow()])}\n`);
  } finally {
    await browser.close();
    await Promise.all([before.stop(), after.stop()]);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
