// Episodes as one self-contained HTML file to send to a researcher: steps, inputs, outputs,
// rewards and a reward chart (inline SVG), with no script at all, no external reference, and a CSP
// that forbids loading anything but the page's own style and data: images. How blocks of
// environment output render (the app's text/Markdown/image rules) is handed in by the caller.
// Served by the app (lib/http streams it); the page itself is built with Web Crypto only (the style's hash).
import { streamResponse } from "@/lib/http";
import type { Block } from "@/lib/ors/protocol";
import { END_REASON_LABEL, type EndReason } from "../trajectory/end-reason";
import { escapeHtml } from "../trajectory/html-escape";
import { cumulativeRewards, taskLabel } from "../trajectory/model";
import { formatReward, rewardLabel } from "../trajectory/reward";
import type { Trajectory, TrajectoryStep, TrajectorySummary } from "../trajectory/schema";

/** At most this many trajectories go into one file (a researcher reads a few; filter for the rest). */
export const HTML_EXPORT_MAX = 500;

export interface HtmlExportOptions {
  /**
   * Safe HTML of a list of blocks (text, Markdown, images), by the app's rules
   * (components/trajectories/html-export-blocks.tsx). Without it, text shows as text and images
   * are left out, saying so.
   */
  blocks?: (blocks: readonly Block[]) => string;
  /** When the file was made (ms since the epoch; default now). */
  exportedAt?: number;
}

const CSS = `
:root{color-scheme:light dark;--fg:#18181b;--muted:#71717a;--line:#e4e4e7;--soft:#f4f4f5;--accent:#4338ca;--ok:#047857;--bad:#b91c1c;--warn:#b45309;--bar:#10b981;--neg:#f87171;--cum:#f59e0b}
@media (prefers-color-scheme:dark){:root{--fg:#e4e4e7;--muted:#a1a1aa;--line:#3f3f46;--soft:#18181b;--accent:#a5b4fc;--ok:#34d399;--bad:#f87171;--warn:#fbbf24}body{background:#09090b}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:72rem;padding:1.5rem;font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg)}
h1{font-size:1.4rem;margin:0 0 .25rem}h2{font-size:1.2rem;margin:0 0 .5rem}h3{font-size:1rem;margin:1.25rem 0 .5rem}h4{font-size:.95rem;margin:0}
.muted{color:var(--muted)}.mono,code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
header.doc{border-bottom:1px solid var(--line);padding-bottom:.75rem;margin-bottom:1rem}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid var(--line);padding:.3rem .5rem;text-align:left;vertical-align:top}th{font-size:12px;color:var(--muted);font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
a{color:var(--accent)}
article.trajectory{border:1px solid var(--line);border-radius:.5rem;padding:1rem 1.25rem;margin:1.5rem 0;break-inside:avoid-page}
dl.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(12rem,1fr));gap:.25rem 1rem;margin:.5rem 0}
dl.facts div{min-width:0}dl.facts dt{font-size:11px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere}
.badge{display:inline-block;border-radius:999px;padding:0 .5rem;font-size:12px;font-weight:600;border:1px solid currentColor}
.r-finished{color:var(--ok)}.r-error{color:var(--bad)}.r-timeout,.r-interrupted,.r-running{color:var(--warn)}.r-user_closed,.r-cancelled,.r-policy_stopped{color:var(--muted)}
.note{border-left:3px solid var(--warn);padding:.25rem .75rem;margin:.5rem 0;background:var(--soft)}
.error{border-left-color:var(--bad)}
ol.steps{list-style:none;padding:0;margin:0}
li.step{border-top:1px solid var(--line);padding:.75rem 0}
.step-head{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:baseline}
.label{font-size:11px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);margin:.5rem 0 .15rem}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--soft);border-radius:.375rem;padding:.5rem .75rem;margin:0;max-height:40rem;overflow:auto}
.text{white-space:pre-wrap;overflow-wrap:anywhere}
.md{overflow-wrap:anywhere}.md>:first-child{margin-top:0}.md>:last-child{margin-bottom:0}
.md p{margin:.5rem 0}.md pre code{background:none;padding:0}.md code{background:var(--soft);border-radius:.25rem;padding:0 .2rem}
.md blockquote{border-left:4px solid var(--line);margin:.5rem 0;padding-left:.75rem;color:var(--muted)}
.md table{width:auto;margin:.5rem 0}.md td,.md th{border:1px solid var(--line)}
.md .align-right{text-align:right}.md .align-center{text-align:center}
.link-url{color:var(--muted);font-size:12px}
.blocks{display:flex;flex-direction:column;gap:.75rem}
img{max-width:100%;max-height:28rem;border:1px solid var(--line);border-radius:.375rem;image-rendering:pixelated}
figure{margin:0}figcaption{font-size:12px;color:var(--muted)}
svg.chart{display:block;width:100%;height:120px}
.legend{display:flex;gap:1rem;font-size:11px;color:var(--muted)}
.swatch{display:inline-block;width:.6rem;height:.6rem;margin-right:.25rem;vertical-align:middle}
.sw-bar{background:var(--bar)}.sw-cum{background:var(--cum);height:2px}.sw-after{background:#a1a1aa}
.pos{color:var(--ok)}.neg{color:var(--bad)}
footer{margin-top:2rem;color:var(--muted);font-size:12px}
@media print{article.trajectory{border:none;padding:0}pre{max-height:none}}
`.trim();

let csp: Promise<string> | null = null;

/** The file's Content-Security-Policy: nothing loads but its own style (by hash) and data: images. */
export function htmlExportCsp(): Promise<string> {
  csp ??= crypto.subtle.digest("SHA-256", new TextEncoder().encode(CSS)).then((d) => {
    const hash = btoa(String.fromCharCode(...new Uint8Array(d)));
    return `default-src 'none'; style-src 'sha256-${hash}'; img-src data:; base-uri 'none'; form-action 'none'`;
  });
  return csp;
}

/** A time in the file's words: `2025-11-22 03:20:00 UTC`. */
export function when(at: number | null | undefined): string {
  if (at == null) return "—";
  return `${new Date(at)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, "")} UTC`;
}

/** A duration in the file's words: `42 ms`, `3.2 s`, `2 min 5 s`. */
export function duration(ms: number | null | undefined): string {
  if (ms == null) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

function endBadge(reason: string | null): string {
  const r = reason ?? "running";
  return `<span class="badge r-${escapeHtml(r)}">${escapeHtml(END_REASON_LABEL[r as EndReason | "running"] ?? r)}</span>`;
}

/** A reward as the file shows it, coloured by its sign. */
export function reward(value: number | null | undefined, signed = false): string {
  const cls = value == null || value === 0 ? "" : value > 0 ? "pos" : "neg";
  return `<span class="mono ${cls}" title="${escapeHtml(rewardLabel(value, { signed }))}">${escapeHtml(formatReward(value, { signed }))}</span>`;
}

function json(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value, null, 2) ?? "null";
  } catch {
    text = String(value);
  }
  return `<pre>${escapeHtml(text)}</pre>`;
}

/** The blocks as text only, when no renderer is given: never raw, images left out. */
function plainBlocks(blocks: readonly Block[]): string {
  if (blocks.length === 0) return `<p class="muted">No blocks.</p>`;
  return `<div class="blocks">${blocks
    .map((b) =>
      b.type === "text"
        ? `<div class="text">${escapeHtml(b.text)}</div>`
        : `<p class="muted">[${escapeHtml(b.mimeType || "image")} image not included]</p>`,
    )
    .join("")}</div>`;
}

const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));

/**
 * Reward per step (bars) and cumulative reward (a line) as inline SVG: presentation attributes
 * only (no style attributes, no references), so the file's CSP needs nothing for it. Steps
 * called after the episode finished are grey, beyond a dashed "end" line, and not counted.
 */
export function rewardChartSvg(steps: readonly TrajectoryStep[], height = 120): string {
  if (steps.length === 0) return `<p class="muted">No steps.</p>`;
  const cum = cumulativeRewards([...steps]);
  const values = [...steps.map((s) => s.reward ?? 0), ...cum, 0].filter(Number.isFinite);
  const min = Math.min(...values);
  const max = Math.max(...values) === min ? min + 1 : Math.max(...values);
  const w = Math.max(steps.length * 28, 600);
  const pad = 6;
  const y = (v: number) => pad + ((max - (Number.isFinite(v) ? v : 0)) / (max - min)) * (height - 2 * pad);
  const bw = Math.min(w / steps.length, 48);
  const endAt = steps.findIndex((s) => s.after_end);
  const counted = endAt >= 0 ? cum.slice(0, endAt) : cum;
  const bars = steps
    .map((s, i) => {
      const r = s.reward ?? 0;
      const top = Math.min(y(r), y(0));
      const h = Math.max(Math.abs(y(r) - y(0)), r === 0 ? 1 : 0);
      const fill = s.after_end ? "#a1a1aa" : r < 0 ? "#f87171" : "#10b981";
      const title = s.after_end
        ? `Step ${s.index}: called after the episode finished, not counted (reward ${rewardLabel(s.reward, { signed: true })})`
        : `Step ${s.index}: reward ${rewardLabel(s.reward, { signed: true })}, cumulative ${formatReward(cum[i])}`;
      return `<rect x="${fmt(i * bw + bw * 0.2)}" y="${fmt(top)}" width="${fmt(bw * 0.6)}" height="${fmt(h)}" fill="${fill}"><title>${escapeHtml(title)}</title></rect>`;
    })
    .join("");
  const line = counted.map((c, i) => `${i === 0 ? "M" : "L"}${fmt((i + 0.5) * bw)},${fmt(y(c))}`).join(" ");
  const end =
    endAt > 0
      ? `<line x1="${fmt(endAt * bw)}" x2="${fmt(endAt * bw)}" y1="0" y2="${height}" stroke="#71717a" stroke-dasharray="4 3" vector-effect="non-scaling-stroke"/>`
      : "";
  const label = `Reward per step: ${steps.length} step${steps.length === 1 ? "" : "s"}, total ${formatReward(cum.at(-1))}`;
  return `<figure><svg class="chart" role="img" aria-label="${escapeHtml(label)}" viewBox="0 0 ${fmt(w)} ${height}" preserveAspectRatio="none"><line x1="0" x2="${fmt(w)}" y1="${fmt(y(0))}" y2="${fmt(y(0))}" stroke="#a1a1aa" vector-effect="non-scaling-stroke"/>${end}${bars}<path d="${line}" fill="none" stroke="#f59e0b" stroke-width="2" vector-effect="non-scaling-stroke"/></svg><figcaption class="legend"><span><span class="swatch sw-bar"></span>reward per step</span><span><span class="swatch sw-cum"></span>cumulative</span>${endAt >= 0 ? `<span><span class="swatch sw-after"></span>after the end (not counted)</span>` : ""}</figcaption></figure>`;
}

/** One term of a `<dl class="facts">`. */
export function fact(name: string, valueHtml: string): string {
  return `<div><dt>${escapeHtml(name)}</dt><dd>${valueHtml}</dd></div>`;
}

function stepHtml(t: Trajectory, s: TrajectoryStep, cumulative: number, o: HtmlExportOptions): string {
  const blocks = o.blocks ?? plainBlocks;
  const status = s.ok == null ? "in flight" : s.ok ? "ok" : "error";
  const marks: string[] = [];
  if (s.finished) marks.push("finished");
  if (s.after_end) marks.push("after the end (not counted)");
  if (s.replay?.differs.length) marks.push(`differs from the original: ${s.replay.differs.join(", ")}`);
  if (s.truncated) marks.push(`cut to ${s.truncated.kept_bytes} of ${s.truncated.original_bytes} bytes`);
  const agent = s.agent;
  return `<li class="step" id="t-${escapeHtml(t.id)}-s-${s.index}">
<div class="step-head"><h4>Step ${s.index} · <span class="mono">${escapeHtml(s.tool)}</span></h4><span>reward ${reward(s.reward, true)}</span><span class="muted">cumulative ${reward(cumulative)}</span><span class="muted">${escapeHtml(status)} · ${escapeHtml(duration(s.latency_ms))}</span>${marks.length ? `<span class="muted">${escapeHtml(marks.join(" · "))}</span>` : ""}</div>
${agent ? `<p class="muted">chosen by the ${escapeHtml(agent.policy)} policy${agent.model ? ` (${escapeHtml(agent.model)})` : ""}, turn ${agent.turn}</p>${agent.message ? `<div class="label">The model said</div><div class="text">${escapeHtml(agent.message)}</div>` : ""}` : ""}
<div class="label">Input</div>${json(s.input)}
<div class="label">Output</div>${s.ok === false && s.error ? `<div class="note error text">${escapeHtml(s.error)}</div>` : ""}${s.blocks.length || s.ok ? blocks(s.blocks) : ""}
${s.metadata != null ? `<div class="label">Metadata</div>${json(s.metadata)}` : ""}
</li>`;
}

/** One trajectory as an `<article>` (its id is the anchor `#t-<id>`). */
export function trajectoryArticle(t: Trajectory, o: HtmlExportOptions = {}): string {
  const blocks = o.blocks ?? plainBlocks;
  const cum = cumulativeRewards(t.steps);
  const facts = [
    fact("Trajectory", `<span class="mono">${escapeHtml(t.id)}</span>`),
    fact("Server", `<span class="mono">${escapeHtml(t.server)}</span>`),
    fact("Session", `<span class="mono">${escapeHtml(t.sid ?? "—")}</span>`),
    fact("Task", `<span class="mono">${escapeHtml(taskLabel(t.task))}</span>`),
    fact("Started", escapeHtml(when(t.started_at))),
    fact("Ran", escapeHtml(t.ended_at != null ? duration(t.ended_at - t.started_at) : "still running")),
    fact("End", endBadge(t.end_reason)),
    fact("Total reward", reward(t.total_reward)),
    fact("Steps", String(t.steps.length)),
  ];
  if (t.run)
    facts.push(
      fact(
        "Run",
        `<span class="mono">${escapeHtml(t.run.id)}</span>, task ${t.run.task_index}, repeat ${t.run.repeat + 1}`,
      ),
    );
  if (t.origin)
    facts.push(
      fact(
        "Origin",
        `${escapeHtml(t.origin.kind)}${t.origin.from ? ` of <span class="mono">${escapeHtml(t.origin.from)}</span>` : ""}${t.origin.step != null ? ` at step ${t.origin.step}` : ""}`,
      ),
    );
  if (t.golden) facts.push(fact("Golden", "yes"));
  const taskSpec = t.task && "task_spec" in t.task ? `<h3>Task</h3>${json(t.task.task_spec)}` : "";
  return `<article class="trajectory" id="t-${escapeHtml(t.id)}" aria-labelledby="t-${escapeHtml(t.id)}-title">
<h2 id="t-${escapeHtml(t.id)}-title">${escapeHtml(t.env ?? "unknown environment")} · <span class="mono">${escapeHtml(taskLabel(t.task))}</span> ${endBadge(t.end_reason)}</h2>
<dl class="facts">${facts.join("")}</dl>
${t.error ? `<p class="note${t.end_reason === "error" ? " error" : ""}">${escapeHtml(t.error)}</p>` : ""}
${t.agent_end ? `<p class="note">The policy stopped without a tool call (${escapeHtml(t.agent_end.reason)})${t.agent_end.message ? `: <span class="text">${escapeHtml(t.agent_end.message)}</span>` : ""}</p>` : ""}
${taskSpec}
<h3>Prompt</h3>${t.prompt ? blocks(t.prompt) : `<p class="muted">The prompt was not recorded.</p>`}
<h3>Reward</h3>${rewardChartSvg(t.steps)}
<h3>Steps</h3>${t.steps.length ? `<ol class="steps">${t.steps.map((s, i) => stepHtml(t, s, cum[i] ?? 0, o)).join("\n")}</ol>` : `<p class="muted">No steps.</p>`}
</article>`;
}

/**
 * The start of a document in this format, up to `<body>`: the strict CSP (its style by hash), the
 * style. Other files made the same way (lib/review/report-html.ts) open with it.
 */
export async function head(title: string): Promise<string> {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(await htmlExportCsp())}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="ORS Playground">
<title>${escapeHtml(title)}</title>
<style>${CSS}</style>
</head>
<body>
`;
}

/** The end of a document in this format: when it was made and how output is shown. */
export function foot(exportedAt: number): string {
  return `<footer>Exported from ORS Playground on ${escapeHtml(when(exportedAt))}. Environment output is shown as text, or as Markdown without raw HTML; links are shown, not followed; only raster images embedded in the file are shown.</footer>
</body>
</html>
`;
}

/** One trajectory as a whole HTML document. */
export async function trajectoryHtml(t: Trajectory, o: HtmlExportOptions = {}): Promise<string> {
  const title = `${t.env ?? "Episode"} ${taskLabel(t.task)} — ${t.id}`;
  return `${await head(title)}<header class="doc"><h1>${escapeHtml(title)}</h1><p class="muted">One episode recorded by ORS Playground.</p></header>
<main>
${trajectoryArticle(t, o)}
</main>
${foot(o.exportedAt ?? Date.now())}`;
}

function summaryTable(items: readonly TrajectorySummary[]): string {
  const rows = items
    .map(
      (t) =>
        `<tr><td class="mono"><a href="#t-${escapeHtml(t.id)}">${escapeHtml(t.id)}</a></td><td>${escapeHtml(t.env ?? "unknown")}</td><td class="mono">${escapeHtml(t.task_label)}</td><td class="mono">${escapeHtml(t.server)}</td><td>${endBadge(t.end_reason)}</td><td class="num">${t.num_steps}</td><td class="num">${reward(t.total_reward)}</td><td>${escapeHtml(when(t.started_at))}</td></tr>`,
    )
    .join("\n");
  return `<nav aria-label="Trajectories in this file"><table><thead><tr><th>Id</th><th>Environment</th><th>Task</th><th>Server</th><th>End</th><th class="num">Steps</th><th class="num">Reward</th><th>Started</th></tr></thead><tbody>
${rows}
</tbody></table></nav>`;
}

/**
 * A set of trajectories as one HTML document, in pieces: the header and a table of contents of
 * `items` first, then each trajectory as `load` reads it, one at a time (memory holds one).
 * `total` is how many matched (more than `items` when the set was cut to HTML_EXPORT_MAX).
 */
export async function* trajectoriesHtml(
  items: readonly TrajectorySummary[],
  total: number,
  load: (id: string) => Promise<Trajectory | null>,
  o: HtmlExportOptions & { description?: string } = {},
): AsyncGenerator<string> {
  const title = `${items.length} episode${items.length === 1 ? "" : "s"} — ORS Playground`;
  yield `${await head(title)}<header class="doc"><h1>${escapeHtml(title)}</h1>${o.description ? `<p class="muted">${escapeHtml(o.description)}</p>` : ""}${
    total > items.length
      ? `<p class="note">${total} episodes matched; this file holds the first ${items.length}. Narrow the filters to export the others.</p>`
      : ""
  }</header>
${items.length ? summaryTable(items) : `<p class="muted">No episodes matched.</p>`}
<main>
`;
  for (const s of items) {
    const t = await load(s.id);
    yield t
      ? `${trajectoryArticle(t, o)}\n`
      : `<article class="trajectory" id="t-${escapeHtml(s.id)}"><p class="muted">Trajectory ${escapeHtml(s.id)} was deleted while the file was made.</p></article>\n`;
  }
  yield `</main>
${foot(o.exportedAt ?? Date.now())}`;
}

/**
 * The headers of an HTML export download: a file, never run in the app's origin. A browser that
 * opens it in place anyway gets no script and no origin (`sandbox`); the file's own meta tag
 * carries the strict policy (its style by hash).
 */
export function htmlExportHeaders(filename: string): Record<string, string> {
  return {
    "Cache-Control": "no-store",
    "Content-Type": "text/html; charset=utf-8",
    "Content-Disposition": `attachment; filename="${filename.replace(/[^\w.-]+/g, "_")}"`,
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy":
      "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; sandbox",
  };
}

/** Streams the pieces `pieces` yields as the body of an HTML download. */
export function htmlExportResponse(pieces: AsyncIterable<string>, filename: string): Promise<Response> {
  return streamResponse(pieces, htmlExportHeaders(filename));
}
