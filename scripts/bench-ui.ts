// `npm run bench:ui`: the UI's budgets (issue 4 "Quality"), measured on a production build served by
// `next start` on a free loopback port (started and stopped here by PID), with headless Chromium:
//   1. first-load JS per page: the gzipped size of every script the page's HTML loads (≤ 200 kB);
//   2. navigation → interactive tool form on `math` train/0 (≤ 1.5 s), median of fresh-context runs;
//   3. `task_range` requests when the 100,000-task `bigsplit` list is scrolled to its end.
// Prints a table and writes the figures to scripts/BENCH-UI.md.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { type Browser, chromium, type Page } from "@playwright/test";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const JS_BUDGET_KB = 200;
const FORM_BUDGET_MS = 1500;

const USAGE = `Usage: npm run bench:ui -- [options]
  --no-build            reuse the existing build in the dist dir (default: run next build first)
  --dist-dir <dir>      Next build directory (default $NEXT_DIST_DIR or .next-ui)
  --port <n>            port for next start (default: the first free one in 8450–8499)
  --runs <n>            timed runs for the tool-form figure (default 5)
  --chromium <path>     Chromium executable (default $CHROMIUM_PATH or /usr/bin/chromium)
  --no-write            do not write scripts/BENCH-UI.md`;

const { values: args } = parseArgs({
  options: {
    "no-build": { type: "boolean", default: false },
    "dist-dir": { type: "string" },
    port: { type: "string" },
    runs: { type: "string", default: "5" },
    chromium: { type: "string" },
    "no-write": { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
const distDir = args["dist-dir"] ?? process.env.NEXT_DIST_DIR ?? ".next-ui";
const runs = Math.max(1, Number(args.runs));
const chromiumPath = args.chromium ?? process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

async function pickPort(): Promise<number> {
  if (args.port) return Number(args.port);
  for (let p = 8450; p <= 8499; p++) if (await portIsFree(p)) return p;
  throw new Error("no free port in 8450–8499");
}

function run(cmd: string, cmdArgs: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, cmdArgs, { cwd: ROOT, env, stdio: ["ignore", "inherit", "inherit"] });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`${cmd} ${cmdArgs.join(" ")} exited ${code}`)),
    );
  });
}

/** Starts `next start` in its own process group so the whole tree stops with one signal. */
function startNext(port: number, env: NodeJS.ProcessEnv): ChildProcess {
  const bin = path.join(ROOT, "node_modules", ".bin", "next");
  return spawn(bin, ["start", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ["ignore", "ignore", "inherit"],
  });
}

function stopGroup(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || !child.pid) return resolve();
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {}
      resolve();
    }, 5000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      clearTimeout(timer);
      resolve();
    }
  });
}

async function waitForHealth(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`next start exited with ${child.exitCode}`);
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`server did not answer ${url} within ${timeoutMs} ms`);
}

type JsFigure = {
  page: string;
  status: number;
  scripts: number;
  rawKb: number;
  gzipKb: number;
  /** Every script the page fetched until it settled (lazy chunks and link prefetches included). */
  allScripts: number;
  allGzipKb: number;
};

const gzKb = (b: Buffer) => gzipSync(b, { level: 9 }).length / 1024;

/** Gzipped size of the scripts the page's HTML references (what a first visit must load to run). */
async function firstLoadJs(browser: Browser, base: string, route: string): Promise<JsFigure> {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const bodies = new Map<string, Promise<Buffer | null>>();
  page.on("response", (res) => {
    if (res.request().resourceType() === "script")
      bodies.set(
        res.url(),
        res.body().catch(() => null),
      );
  });
  const res = await page.goto(base + route, { waitUntil: "load" });
  const html = res ? await res.text() : "";
  // Module browsers skip `noModule` scripts (legacy polyfills): not part of what Chromium loads.
  const srcs = [...html.matchAll(/<script([^>]*)>/g)]
    .filter((m) => !/\snomodule/i.test(m[1]!))
    .map((m) => /\ssrc="([^"]+)"/.exec(m[1]!)?.[1])
    .filter((src): src is string => !!src)
    .map((src) => new URL(src.replace(/&amp;/g, "&"), base).toString());
  // Let the page settle: no new script for 1 s (at most 10 s).
  for (let seen = -1, t = Date.now(); bodies.size !== seen && Date.now() - t < 10_000; ) {
    seen = bodies.size;
    await page.waitForTimeout(1000);
  }
  let raw = 0;
  let gz = 0;
  let count = 0;
  for (const src of new Set(srcs)) {
    let body = (await bodies.get(src)) ?? null;
    if (!body) {
      const r = await fetch(src);
      body = r.ok ? Buffer.from(await r.arrayBuffer()) : null;
    }
    if (!body) continue;
    count++;
    raw += body.length;
    gz += gzipSync(body, { level: 9 }).length;
  }
  let allGzipKb = 0;
  let allScripts = 0;
  for (const b of bodies.values()) {
    const body = await b;
    if (!body) continue;
    allScripts++;
    allGzipKb += gzKb(body);
  }
  await ctx.close();
  return {
    page: route,
    status: res?.status() ?? 0,
    scripts: count,
    rawKb: raw / 1024,
    gzipKb: gz / 1024,
    allScripts,
    allGzipKb,
  };
}

type FormFigure = {
  target: string;
  measuredUntil: string;
  runsMs: number[];
  medianMs: number;
  maxMs: number;
  /** When the new-episode page needs a click on "Start episode": navigation → that button enabled. */
  pageReadyMs?: number[];
  failures: string[];
};

async function timeToToolForm(browser: Browser, base: string): Promise<FormFigure> {
  const formRoute = "/s/local/e/math/episode/new?split=train&task=0";
  // The episode helper's tool form: a region "Call <tool>" holding the schema-generated fields.
  const toolField = (page: Page) =>
    page
      .getByRole("region", { name: /^Call / })
      .locator("input, textarea, select")
      .first();
  const startButton = (page: Page) => page.getByRole("button", { name: "Start episode", exact: true });

  /** One navigation; returns [total ms, ms until the start button was clickable (if clicked)]. */
  const once = async (): Promise<[number, number | undefined]> => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    try {
      const t0 = Date.now();
      const res = await page.goto(base + formRoute, { waitUntil: "commit" });
      if (!res || res.status() >= 400) throw new Error(`episode page answered ${res?.status()}`);
      let ready: number | undefined;
      await toolField(page).or(startButton(page)).first().waitFor({ state: "visible", timeout: 30_000 });
      if (!(await toolField(page).isVisible())) {
        // New-episode page first: the episode starts on "Start episode" (session + /create).
        // Enabled and hydrated (React has attached to it), so the click is not lost.
        await page.waitForFunction(
          (el) =>
            el !== null &&
            !(el as HTMLButtonElement).disabled &&
            Object.keys(el).some((k) => k.startsWith("__reactFiber")),
          await startButton(page).elementHandle(),
          { polling: "raf", timeout: 30_000 },
        );
        ready = Date.now() - t0;
        await startButton(page).click();
      }
      const field = toolField(page);
      await field.waitFor({ state: "visible", timeout: 30_000 });
      await page.waitForFunction(
        (el) => el !== null && !(el as HTMLInputElement).disabled,
        await field.elementHandle(),
        {
          polling: "raf",
          timeout: 30_000,
        },
      );
      return [Date.now() - t0, ready];
    } catch (err) {
      const shot = path.join(ROOT, ".data", "bench-ui", `tool-form-failure-${Date.now()}.png`);
      await page.screenshot({ path: shot }).catch(() => undefined);
      throw new Error(`${(err as Error).message.split("\n")[0]} (screenshot: ${shot})`);
    } finally {
      await ctx.close();
    }
  };

  let useForm = true;
  try {
    await once(); // warm-up (and probe: is the episode page there?)
  } catch (err) {
    console.warn(`tool form not measurable (${(err as Error).message}); timing the env page's tools instead`);
    useForm = false;
  }
  const times: number[] = [];
  const readies: number[] = [];
  const failures: string[] = [];
  for (let i = 0; i < runs; i++) {
    if (useForm) {
      try {
        const [ms, ready] = await once();
        times.push(ms);
        if (ready !== undefined) readies.push(ready);
      } catch (err) {
        failures.push((err as Error).message);
        console.warn(`tool-form run ${i + 1} failed: ${(err as Error).message}`);
      }
      continue;
    }
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    const t0 = Date.now();
    await page.goto(`${base}/s/local/e/math`, { waitUntil: "commit" });
    await page.getByRole("heading", { name: "submit" }).waitFor({ state: "visible", timeout: 30_000 });
    times.push(Date.now() - t0);
    await ctx.close();
  }
  if (times.length === 0) throw new Error(`every tool-form run failed: ${failures.join("; ")}`);
  const sorted = [...times].sort((a, b) => a - b);
  return {
    failures,
    target: useForm ? formRoute : "/s/local/e/math",
    measuredUntil: useForm
      ? readies.length
        ? 'click "Start episode" as soon as it is enabled and hydrated, then until the first field of the tool form is enabled'
        : "first field of the tool form enabled"
      : "episode page not available: env page's tools visible instead",
    runsMs: times,
    medianMs: sorted[Math.floor(sorted.length / 2)]!,
    maxMs: sorted[sorted.length - 1]!,
    pageReadyMs: readies.length ? readies : undefined,
  };
}

/** Navigation to an open episode's page (session created beforehand) → its tool form enabled. */
async function timeToEpisodeForm(browser: Browser, base: string): Promise<number[] | undefined> {
  const relay = `${base}/api/servers/local`;
  const times: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const { sid } = (await (await fetch(`${relay}/create_session`, { method: "POST" })).json()) as {
      sid: string;
    };
    const headers = { "content-type": "application/json", "x-session-id": sid };
    const created = await fetch(`${relay}/create`, {
      method: "POST",
      headers,
      body: JSON.stringify({ env_name: "math", split: "train", index: 0 }),
    });
    if (!created.ok) return undefined;
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    try {
      const t0 = Date.now();
      const res = await page.goto(`${base}/s/local/e/math/episode/${sid}`, { waitUntil: "commit" });
      if (!res || res.status() >= 400) return undefined;
      const field = page
        .getByRole("region", { name: /^Call / })
        .locator("input, textarea, select")
        .first();
      await field.waitFor({ state: "visible", timeout: 30_000 });
      await page.waitForFunction(
        (el) => el !== null && !(el as HTMLInputElement).disabled,
        await field.elementHandle(),
        {
          polling: "raf",
          timeout: 30_000,
        },
      );
      if (i > 0) times.push(Date.now() - t0); // run 0 warms up
    } catch {
      return undefined;
    } finally {
      await ctx.close();
      await fetch(`${relay}/delete`, { method: "POST", headers }).catch(() => undefined);
    }
  }
  return times;
}

type ScrollFigure = { requests: number; ranges: string[]; lastVisible: boolean; ms: number };

async function scrollBigsplit(browser: Browser, base: string): Promise<ScrollFigure> {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await ctx.newPage();
  const ranges: string[] = [];
  page.on("request", (req) => {
    if (req.url().endsWith("/bigsplit/task_range")) {
      const b = JSON.parse(req.postData() ?? "{}") as { start?: number; stop?: number };
      ranges.push(`${b.start}–${b.stop}`);
    }
  });
  await page.goto(`${base}/s/local/e/bigsplit?tab=tasks&split=train`);
  await page
    .getByRole("button", { name: "Task 0", exact: true })
    .filter({ hasText: "Task #0:" })
    .waitFor({ timeout: 30_000 });
  const t0 = Date.now();
  // Scroll the way a user drags: 40 steps from top to bottom, one per frame.
  await page.getByRole("region", { name: "Tasks of train" }).evaluate(async (el) => {
    for (let i = 1; i <= 40; i++) {
      el.scrollTop = (el.scrollHeight * i) / 40;
      await new Promise((r) => requestAnimationFrame(r));
    }
  });
  const last = page
    .getByRole("button", { name: "Task 99999", exact: true })
    .filter({ hasText: "Task #99999:" });
  let lastVisible = true;
  try {
    await last.waitFor({ state: "visible", timeout: 30_000 });
  } catch {
    lastVisible = false;
  }
  const ms = Date.now() - t0;
  await ctx.close();
  return { requests: ranges.length, ranges, lastVisible, ms };
}

async function main() {
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_DIST_DIR: distDir, NEXT_TELEMETRY_DISABLED: "1" };
  if (!args["no-build"]) {
    console.log(`building (NEXT_DIST_DIR=${distDir}) …`);
    await run(path.join(ROOT, "node_modules", ".bin", "next"), ["build"], env);
  }
  const port = await pickPort();
  const base = `http://127.0.0.1:${port}`;
  const dataDir = path.join(ROOT, ".data", "bench-ui");
  const server = startNext(port, { ...env, PLAYGROUND_DATA_DIR: dataDir, NODE_ENV: "production" });
  const onSignal = () => {
    void stopGroup(server).then(() => process.exit(130));
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
    const routes = [
      "/",
      "/s/local",
      "/s/local/e/math",
      "/s/local/e/bigsplit?tab=tasks&split=train&task=12",
      "/s/local/e/math/episode/new?split=train&task=0",
      "/trajectories",
      "/live",
    ];
    const js: JsFigure[] = [];
    for (const r of routes) js.push(await firstLoadJs(browser, base, r));
    const form = await timeToToolForm(browser, base);
    const episodeForm = await timeToEpisodeForm(browser, base);
    const scroll = await scrollBigsplit(browser, base);
    report(js, form, episodeForm, scroll, port);
  } finally {
    await browser?.close();
    await stopGroup(server);
  }
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function report(
  js: JsFigure[],
  form: FormFigure,
  episodeForm: number[] | undefined,
  scroll: ScrollFigure,
  port: number,
) {
  const lines: string[] = [];
  const ok = (b: boolean) => (b ? "ok" : "OVER");
  lines.push(
    "| Page | HTTP | First-load scripts | raw (kB) | gzip (kB) | Budget 200 kB | All JS fetched until idle: scripts, gzip (kB) |",
  );
  lines.push("|---|---|---|---|---|---|---|");
  for (const f of js) {
    const measured = f.status < 400;
    lines.push(
      `| \`${f.page}\` | ${f.status} | ${f.scripts} | ${f.rawKb.toFixed(1)} | ${f.gzipKb.toFixed(1)} | ${measured ? ok(f.gzipKb <= JS_BUDGET_KB) : "n/a (page missing)"} | ${f.allScripts}, ${f.allGzipKb.toFixed(1)} |`,
    );
  }
  const formOk = form.medianMs <= FORM_BUDGET_MS;
  const table2 = [
    "| Figure | Value | Budget |",
    "|---|---|---|",
    `| Navigation → interactive tool form (\`${form.target}\`; ${form.measuredUntil}) | median ${form.medianMs} ms, min ${Math.min(...form.runsMs)} ms, max ${form.maxMs} ms (runs: ${form.runsMs.join(", ")})${form.pageReadyMs ? `; of which until "Start episode" enabled: ${form.pageReadyMs.join(", ")} ms` : ""}${form.failures.length ? `; ${form.failures.length} run(s) failed: ${form.failures.join("; ")}` : ""} | ≤ ${FORM_BUDGET_MS} ms: ${ok(formOk)} |`,
    episodeForm
      ? `| Navigation → interactive tool form of an open episode (\`/s/local/e/math/episode/<sid>\`, session created beforehand) | median ${median(episodeForm)} ms, min ${Math.min(...episodeForm)} ms, max ${Math.max(...episodeForm)} ms (runs: ${episodeForm.join(", ")}) | ≤ ${FORM_BUDGET_MS} ms: ${ok(median(episodeForm) <= FORM_BUDGET_MS)} |`
      : "| Navigation → tool form of an open episode | not measurable (episode page missing) | |",
    `| \`task_range\` requests scrolling \`bigsplit\` (100,000 tasks) to its end in 40 steps | ${scroll.requests} (${scroll.ranges.join(", ")}); task 99999 ${scroll.lastVisible ? "visible" : "NOT visible"} after ${scroll.ms} ms | only visible ranges |`,
  ];
  const out = [...lines, "", ...table2].join("\n");
  console.log(`\n${out}\n`);
  if (!args["no-write"]) {
    const md = [
      "# UI benchmark (`npm run bench:ui`)",
      "",
      `Measured ${new Date().toISOString()} on this machine (${process.platform}, ${os.cpus().length} cores, load average`,
      `${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(
          " / ",
        )} at the end: other work shares the CPU, so times vary), node ${process.version}, production build`,
      `(\`next build\` + \`next start\` on 127.0.0.1:${port}), headless Chromium, fresh browser context per page.`,
      "First-load JS = gzip (level 9) of every `<script src>` in the page's HTML (what must load before the page",
      "hydrates; `noModule` polyfills, which Chromium skips, excluded). The last column adds everything fetched",
      "until the page settles: chunks loaded on demand (the ORS client with its zod schemas) and link prefetches.",
      "Tool form, first row: from `page.goto` of the new-episode page, clicking its Start episode button as soon as",
      "it is enabled and hydrated (session + /create through the relay), until the tool form's first field is enabled.",
      "Second row: from `page.goto` of an open episode's page (session created beforehand) until that field is",
      "enabled. Cold browser context each run, after one warm-up run.",
      "",
      out,
      "",
    ].join("\n");
    fs.writeFileSync(path.join(ROOT, "scripts", "BENCH-UI.md"), md);
    console.log("wrote scripts/BENCH-UI.md");
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
