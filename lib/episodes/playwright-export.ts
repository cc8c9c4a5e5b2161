// "Export as Playwright test": a recorded trajectory as a Playwright spec that drives the
// playground UI by role and label through the same steps (start an episode on the same task, call
// each tool with the recorded input in its JSON tab) and asserts what was recorded as `test`
// compares it (../trajectory/diff.ts, with the options it can honour): each step's outcome, reward and finished
// flag, and the texts of the prompt and of each output. Pure and isomorphic:
// GET /api/trajectories/<id>/playwright serves it.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: it writes template literals of the spec

import type { Block } from "@/lib/ors/protocol";
import { trajectoryHref } from "@/lib/routes";
import { type CompareOptions, parseIgnore } from "../trajectory/diff";
import { taskLabel } from "../trajectory/model";
import { formatReward } from "../trajectory/reward";
import type { Trajectory, TrajectoryStep } from "../trajectory/schema";
import { episodeActions } from "./replay";

export interface PlaywrightExportOptions {
  /** The playground it was exported from (e.g. `http://127.0.0.1:3000`): named in the header. */
  origin?: string;
  /** When it was exported (ms since the epoch), for the header. */
  exportedAt?: number;
  /**
   * How loosely to compare, as `test`'s options (default: exactly). The spec honours masks,
   * whitespace normalisation, a reward tolerance, and ignored `observation`, `reward`, `finished`,
   * `ok`, `error`, `prompt` and the paths of texts in the observation and the prompt; what it
   * never checks (metadata, image data) it says in its header.
   */
  compare?: CompareOptions;
}

/**
 * The comparison options of a query (`?ignore=a,b&mask=RE&reward_tolerance=X&normalize_whitespace=1`,
 * `ignore` and `mask` repeatable), as `test` takes them on its command line. Throws an Error naming
 * what is wrong.
 */
export function compareOptionsFromQuery(query: URLSearchParams): CompareOptions {
  const o: CompareOptions = {};
  const ignore = query
    .getAll("ignore")
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter(Boolean);
  for (const entry of ignore) parseIgnore(entry);
  if (ignore.length) o.ignore = ignore;
  const masks = query.getAll("mask").map((m) => {
    try {
      return new RegExp(m, "g");
    } catch (e) {
      throw new Error(`mask: not a regular expression: ${(e as Error).message}`);
    }
  });
  if (masks.length) o.masks = masks;
  const tol = query.get("reward_tolerance");
  if (tol !== null) {
    const n = Number(tol);
    if (tol.trim() === "" || !Number.isFinite(n) || n < 0)
      throw new Error(`reward_tolerance: expected a number ≥ 0, got ${JSON.stringify(tol)}`);
    o.rewardTolerance = n;
  }
  const ws = query.get("normalize_whitespace");
  if (ws !== null) {
    if (!["1", "0", "true", "false"].includes(ws))
      throw new Error(`normalize_whitespace: expected 1 or 0, got ${JSON.stringify(ws)}`);
    if (ws === "1" || ws === "true") o.normalizeWhitespace = true;
  }
  return o;
}

/** What the spec checks, from the comparison options. */
interface Checks {
  fields: Set<string>;
  /** Paths ignored under `observation` and `prompt`. */
  paths: { observation: string[][]; prompt: string[][] };
  tolerance: number;
  masks: RegExp[];
  normalizeWhitespace: boolean;
}

function checksOf(o: CompareOptions = {}): Checks {
  const fields = new Set<string>();
  const paths = { observation: [] as string[][], prompt: [] as string[][] };
  for (const entry of o.ignore ?? []) {
    const rule = parseIgnore(entry);
    if ("field" in rule) fields.add(rule.field);
    else if (rule.root === "observation" || rule.root === "prompt") paths[rule.root].push(rule.path);
  }
  return {
    fields,
    paths,
    tolerance: Math.max(0, o.rewardTolerance ?? 0),
    masks: [...(o.masks ?? [])],
    normalizeWhitespace: !!o.normalizeWhitespace,
  };
}

/**
 * The blocks as the spec expects them — a text to compare, an image (by its presence), or null for a
 * block whose text is ignored — and the blocks a path leaves out whole (`test` drops them on both
 * sides, then compares what is left: their number, and the others by their place).
 */
function expectedBlocks(blocks: readonly Block[], paths: readonly string[][]): string {
  const hits = (p: readonly string[], i: number) => p[0] === "*" || p[0] === String(i);
  const all = paths.some((p) => p.length === 1 && p[0] === "*");
  const dropped = [
    ...new Set(paths.filter((p) => p.length === 1 && p[0] !== "*").map((p) => Number(p[0]))),
  ].sort((a, b) => a - b);
  const items = blocks.map((b, i) => {
    if (all || dropped.includes(i)) return "null";
    if (b.type !== "text") return `{ image: ${literal(b.mimeType)} }`;
    const textIgnored = paths.some((p) => p.length === 2 && hits(p, i) && (p[1] === "text" || p[1] === "*"));
    return textIgnored ? "null" : literal(b.text);
  });
  const list = `[${items.join(", ")}]`;
  return all ? `${list}, "all"` : dropped.length ? `${list}, ${literal(dropped)}` : list;
}

/** Why a trajectory cannot be exported as a test, or null when it can. */
export function playwrightExportProblem(t: Trajectory): string | null {
  if (!t.env) return "the trajectory's environment is unknown";
  if (!t.task) return "the trajectory's task is unknown (it was recorded mid-episode)";
  return null;
}

/** The file name of the spec: `trajectory-<id>.spec.ts`. */
export function playwrightSpecFileName(t: Pick<Trajectory, "id">): string {
  return `trajectory-${t.id}.spec.ts`;
}

/** A value as TypeScript source (JSON is valid TS; U+2028/9 escaped so nothing ends a line). */
function literal(value: unknown): string {
  return JSON.stringify(value).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

/** Text for a `//` comment: one line, whatever the text holds. */
function commentText(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is dropped
  return text.replace(/[\r\n\u2028\u2029]+/g, " ").replace(/[\u0000-\u001f\u007f]/g, "");
}

function regexSource(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** The steps a spec can re-run: the episode's actions, up to one still in flight when exported. */
function completedActions(t: Trajectory): TrajectoryStep[] {
  const actions = episodeActions(t);
  const open = actions.findIndex((s) => s.ok === null);
  return open < 0 ? actions : actions.slice(0, open);
}

/** What the spec checks of one step, as the episode view shows it and `test` compares it. */
function stepChecks(s: TrajectoryStep, n: number, c: Checks): string[] {
  const card = `step${n}`;
  const header = `${card}.locator("header")`;
  const on = (field: string) => !c.fields.has(field);
  const lines = [
    `  // Step ${n}: ${commentText(s.tool)}`,
    `  await callTool(page, ${literal(s.tool)}, ${literal(s.input)});`,
    `  const ${card} = page.getByRole("article", { name: ${literal(`Step ${n}: ${s.tool}`)} });`,
  ];
  const outcome = on("ok") ? (s.ok ? '"ok"' : '"error"') : "/^(ok|error)$/";
  lines.push(
    `  await expect(${header}.getByText(${outcome}, { exact: true })).toBeVisible({ timeout: STEP_TIMEOUT });`,
  );
  if (s.ok) {
    if (on("reward")) {
      if (c.tolerance > 0)
        lines.push(`  await expectRewardNear(${card}, ${literal(s.reward)}); // within ${c.tolerance}`);
      else {
        const reward =
          s.reward === null
            ? "reward\\s*—"
            : `reward\\s*${regexSource(formatReward(s.reward, { signed: true }))}(?![\\d.e])`;
        lines.push(
          `  await expect(${card}).toContainText(/${reward}/); // recorded reward: ${s.reward ?? "none"}`,
        );
      }
    }
    if (on("finished"))
      lines.push(
        s.finished
          ? `  await expect(${header}.getByText("finished", { exact: true })).toBeVisible();`
          : `  await expect(${header}.getByText("finished", { exact: true })).toHaveCount(0);`,
      );
    if (on("observation")) {
      lines.push(
        `  await expectBlocks(${card}.getByRole("region", { name: ${literal(`Output of step ${n}`)} }), ${expectedBlocks(s.blocks, c.paths.observation)});`,
      );
    }
  } else if (on("error") && s.error) {
    lines.push(`  await expectText(${card}.getByRole("alert"), ${literal(s.error)});`);
  }
  return lines;
}

/** The prompt's check, unless ignored or not recorded. */
function promptCheck(t: Trajectory, c: Checks): string[] {
  if (c.fields.has("prompt") || !t.prompt) return [];
  return [
    `  await expectBlocks(page.getByRole("region", { name: "Prompt", exact: true }), ${expectedBlocks(t.prompt, c.paths.prompt)});`,
  ];
}

/** The comparison in words, for the spec's header (as `test` prints its own). */
function describeChecks(c: Checks): string {
  const parts: string[] = [];
  if (c.fields.size) parts.push(`not checking ${[...c.fields].join(", ")}`);
  const paths = [
    ...c.paths.observation.map((p) => `observation.${p.join(".")}`),
    ...c.paths.prompt.map((p) => `prompt.${p.join(".")}`),
  ];
  if (paths.length) parts.push(`ignoring ${paths.join(", ")}`);
  if (c.tolerance) parts.push(`reward tolerance ${c.tolerance}`);
  if (c.normalizeWhitespace) parts.push("whitespace normalised");
  if (c.masks.length) parts.push(`masks ${c.masks.map((m) => `/${m.source}/`).join(" ")}`);
  return parts.length ? parts.join("; ") : "exactly";
}

/** The helpers of the spec: texts as `test` compares them, and how the episode view shows them. */
function specHelpers(c: Checks): string[] {
  const masks = c.masks.map(
    (m) => `new RegExp(${literal(m.source)}, ${literal(m.flags.includes("g") ? m.flags : `${m.flags}g`)})`,
  );
  return [
    "/** Texts are compared as `ors-playground test` compares them, with the options exported with. */",
    `const MASKS: RegExp[] = [${masks.join(", ")}];`,
    `const NORMALIZE_WHITESPACE = ${c.normalizeWhitespace};`,
    `const REWARD_TOLERANCE = ${c.tolerance};`,
    "",
    '/** A text as compared: what a mask matches reads "…"; whitespace runs as one space, trimmed, if normalised. */',
    "function comparable(text: string): string {",
    "  let out = text;",
    '  for (const mask of MASKS) out = out.replace(mask, "…");',
    '  return NORMALIZE_WHITESPACE ? out.replace(/\\s+/g, " ").trim() : out;',
    "}",
    "",
    "/** Checks the whole text of an element, as compared. */",
    "async function expectText(element: Locator, recorded: string): Promise<void> {",
    "  await expect(element).toBeVisible({ timeout: STEP_TIMEOUT });",
    '  expect(comparable((await element.textContent()) ?? "")).toBe(comparable(recorded));',
    "}",
    "",
    "/** A text block's text as sent: its Raw view, all of it (a long text is collapsed at first). */",
    "async function blockText(block: Locator): Promise<string> {",
    "  if ((await block.locator('[data-text-view=\"markdown\"]').count()) > 0) {",
    '    await block.getByRole("radiogroup").getByText("Raw", { exact: true }).click();',
    '    await expect(block.locator("[data-text-view]")).toHaveAttribute("data-text-view", "raw");',
    "  }",
    '  const all = block.getByRole("button", { name: /^Show all / });',
    "  if ((await all.count()) > 0) await all.click();",
    '  const text = block.locator("[data-text-view] > :first-child > :first-child").or(block.locator(":scope > div > pre"));',
    '  return (await text.first().textContent()) ?? "";',
    "}",
    "",
    "/**",
    " * Checks the blocks of a prompt or an output: each text as compared, images by their presence, null",
    " * not at all; `dropped`: blocks left out of the comparison whole (on both sides, as `test` does).",
    " */",
    "async function expectBlocks(",
    "  region: Locator,",
    "  recorded: (string | { image: string } | null)[],",
    '  dropped: number[] | "all" = [],',
    "): Promise<void> {",
    '  const blocks = region.locator("[data-block-type]");',
    "  if (dropped.length === 0) await expect(blocks).toHaveCount(recorded.length, { timeout: STEP_TIMEOUT });",
    '  else if (dropped !== "all") {',
    "    const kept = (n: number) => n - dropped.filter((i) => i < n).length;",
    "    await expect(region).toBeVisible({ timeout: STEP_TIMEOUT });",
    '    expect(kept(await blocks.count()), "blocks compared").toBe(kept(recorded.length));',
    "  }",
    "  for (const [i, want] of recorded.entries()) {",
    "    if (want === null) continue;",
    "    const block = blocks.nth(i);",
    '    if (typeof want !== "string") {',
    '      await expect(block, `block ${i + 1}`).toHaveAttribute("data-block-type", "image");',
    "      continue;",
    "    }",
    '    await expect(block, `block ${i + 1}`).toHaveAttribute("data-block-type", "text");',
    "    expect(comparable(await blockText(block)), `block ${i + 1}`).toBe(comparable(want));",
    "  }",
    "}",
    "",
    "/** Checks a step's reward within REWARD_TOLERANCE of the recorded one (as shown: 6 significant digits). */",
    "async function expectRewardNear(card: Locator, recorded: number | null): Promise<void> {",
    '  const text = (await card.locator("header").textContent()) ?? "";',
    "  const shown = /reward\\s*(—|[+-]?\\d[\\d.]*(?:e[+-]?\\d+)?)/.exec(text)?.[1];",
    '  expect(shown, "the step\'s reward").toBeDefined();',
    '  if (recorded === null) return expect(shown, "the step\'s reward").toBe("—");',
    '  expect(shown, "the step\'s reward").not.toBe("—");',
    "  const slack = REWARD_TOLERANCE + 1e-6 * Math.max(1, Math.abs(recorded));",
    "  expect(Math.abs(Number(shown) - recorded)).toBeLessThanOrEqual(slack);",
    "}",
  ];
}

/**
 * The trajectory as a Playwright spec (TypeScript source). Throws when it cannot be exported
 * (playwrightExportProblem says why).
 *
 * @example
 * fs.writeFileSync(playwrightSpecFileName(t), playwrightSpec(t, { origin: "http://127.0.0.1:3000" }));
 */
export function playwrightSpec(t: Trajectory, o: PlaywrightExportOptions = {}): string {
  const problem = playwrightExportProblem(t);
  if (problem) throw new Error(`cannot export trajectory ${t.id} as a Playwright test: ${problem}`);
  const env = t.env!;
  const task = t.task!;
  const steps = completedActions(t);
  const last = steps.at(-1);
  const finished = !!last?.ok && last.finished;
  const origin = o.origin?.replace(/\/+$/, "");
  const recorded = new Date(t.started_at).toISOString().replace(/\.\d{3}Z$/, "Z");
  const latency = steps.reduce((sum, s) => sum + Math.max(0, s.latency_ms ?? 0), 0);
  const stepTimeout = Math.max(
    30_000,
    Math.ceil((3 * Math.max(0, ...steps.map((s) => s.latency_ms ?? 0))) / 1000) * 1000,
  );
  const timeout = 60_000 + steps.length * 5_000 + Math.ceil((3 * latency) / 1000) * 1000;
  const skipped = episodeActions(t).length - steps.length;
  const c = checksOf(o.compare);
  const options = describeChecks(c);

  const header = [
    `// Playwright test generated by ORS Playground ("Export as Playwright test") from trajectory ${t.id}:`,
    `// server ${commentText(literal(t.server))}, environment ${commentText(literal(env))}, task ${commentText(taskLabel(task))}, recorded ${recorded};`,
    `// ${steps.length} step${steps.length === 1 ? "" : "s"}, total reward ${formatReward(t.total_reward)}, ended: ${t.end_reason ?? "still running"}.`,
    ...(origin
      ? [
          `// Exported from ${commentText(origin)}${trajectoryHref(t.id)}${o.exportedAt ? ` on ${new Date(o.exportedAt).toISOString().replace(/\.\d{3}Z$/, "Z")}` : ""}.`,
        ]
      : []),
    ...(skipped
      ? [
          `// The last ${skipped} step${skipped === 1 ? " was" : "s were"} still running when it was exported: left out.`,
        ]
      : []),
    "//",
    "// It drives the playground UI by role and label through the same steps: it starts an episode on",
    "// the same task, calls each tool with the recorded input (in the tool's JSON tab), and checks the",
    "// prompt's texts and each step's outcome, reward, finished flag and output texts as recorded,",
    "// compared as `ors-playground test` compares them:",
    `//   ${commentText(options)}.`,
    "// Not checked here: metadata (not shown as text), image data (images by their presence only).",
    "//",
    "// Run it while the playground runs (and reaches the server):",
    `//   npx playwright test ${playwrightSpecFileName(t)}`,
    `// PLAYGROUND_URL: the playground's address (default: the config's baseURL, else ${commentText(origin ?? "http://127.0.0.1:3000")});`,
    `// PLAYGROUND_SERVER: the server's name in the playground (default ${commentText(literal(t.server))}).`,
  ];

  const start =
    "split" in task
      ? [
          `  await page.goto(playgroundUrl(\`\${episodesPath}/new?split=\${encodeURIComponent(${literal(task.split)})}&task=${task.index}\`, baseURL));`,
          '  await expect(page.getByRole("heading", { level: 1, name: "Start an episode" })).toBeVisible();',
        ]
      : [
          "  await page.goto(playgroundUrl(`${episodesPath}/new?spec=1`, baseURL));",
          '  await expect(page.getByRole("heading", { level: 1, name: "Start an episode" })).toBeVisible();',
          `  await page.getByLabel("task_spec (JSON)").fill(${literal(JSON.stringify(task.task_spec, null, 2))});`,
        ];

  const end = finished
    ? ['  await expect(page.getByRole("status").filter({ hasText: "Episode finished" })).toBeVisible();']
    : [
        "  // The recording did not finish: end the episode (the session is deleted on the server).",
        '  await page.getByRole("button", { name: "End episode" }).click();',
        '  await expect(page.getByRole("status").filter({ hasText: "Episode closed" })).toBeVisible();',
      ];

  return `${[
    ...header,
    'import { expect, type Locator, type Page, test } from "@playwright/test";',
    "",
    `const SERVER = process.env.PLAYGROUND_SERVER ?? ${literal(t.server)};`,
    `const ENV = ${literal(env)};`,
    `/** How long one step may take (three times the slowest recorded one, at least 30 s). */`,
    `const STEP_TIMEOUT = ${stepTimeout};`,
    "",
    "function playgroundUrl(path: string, baseURL: string | undefined): string {",
    `  return new URL(path, process.env.PLAYGROUND_URL ?? baseURL ?? ${literal(origin ?? "http://127.0.0.1:3000")}).href;`,
    "}",
    "",
    "/** On the episode page: picks the tool, enters the input in its JSON tab (if it takes one), calls it. */",
    "async function callTool(page: Page, tool: string, input: Record<string, unknown>): Promise<void> {",
    '  await page.getByRole("radio", { name: tool, exact: true }).check();',
    '  const form = page.getByRole("region", { name: `Call ${tool}` });',
    '  const call = form.getByRole("button", { name: `Call ${tool}`, exact: true });',
    "  await expect(call).toBeEnabled({ timeout: STEP_TIMEOUT });",
    '  const json = form.getByRole("tab", { name: "JSON" });',
    "  if ((await json.count()) > 0) {",
    "    await json.click();",
    "    await form.getByLabel(`Input JSON of ${tool}`).fill(JSON.stringify(input, null, 2));",
    "  }",
    "  await call.click();",
    "}",
    "",
    ...specHelpers(c),
    "",
    `test(${literal(`trajectory ${t.id}: ${env} · ${taskLabel(task)} replays in the playground`)}, async ({ page, baseURL }) => {`,
    `  test.setTimeout(${timeout});`,
    "  const episodesPath = `/s/${encodeURIComponent(SERVER)}/e/${encodeURIComponent(ENV)}/episode`;",
    ...start,
    '  await page.getByRole("button", { name: "Start episode" }).click();',
    "  await expect(page).toHaveURL(/\\/episode\\/(?!new)[^/?]+$/);",
    ...promptCheck(t, c),
    ...steps.flatMap((s, i) => ["", ...stepChecks(s, i + 1, c)]),
    "",
    ...end,
    "});",
  ].join("\n")}\n`;
}
