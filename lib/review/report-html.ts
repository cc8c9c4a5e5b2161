// A run, or a leaderboard, as one self-contained HTML file to send (docs/review.md "Run reports"),
// made as the episodes' HTML export is (lib/episodes/html-export.ts: its head with the strict CSP,
// its style, no script, nothing loaded): the summary, the reward histogram (inline SVG), pass@k, the
// tasks worst first, the errors, and links back to the playground's pages. Isomorphic.
import { duration, fact, foot, head, reward, when } from "@/lib/episodes/html-export";
import { runHref, trajectoryHref } from "@/lib/routes";
import type { RunSummary, RunTaskRow } from "@/lib/runs/summary";
import { escapeHtml as esc } from "@/lib/trajectory/html-escape";
import { wilson95 } from "./agreement";
import type { Leaderboard } from "./leaderboard";

export interface ReportOptions {
  /** The playground's origin (`http://127.0.0.1:3000`): links back to its pages start with it. */
  origin: string;
  exportedAt?: number;
}

const pct = (v: number | null | undefined) => (v == null ? "—" : `${(v * 100).toFixed(1)}%`);
const num = (v: number | null | undefined, digits = 3) =>
  v == null ? "—" : Number(v.toFixed(digits)).toString();
const interval = (ci: [number, number] | null, f: (v: number) => string) =>
  ci ? `<span class="muted">[${esc(f(ci[0]))}, ${esc(f(ci[1]))}]</span>` : "";

/** The rewards' histogram as inline SVG with presentation attributes only (the CSP allows no more). */
export function histogramSvg(bins: RunSummary["histogram"], height = 120): string {
  if (!bins.length) return `<p class="muted">No episode completed.</p>`;
  const max = Math.max(...bins.map((b) => b.count), 1);
  const w = 600;
  const bw = w / bins.length;
  const bars = bins
    .map((b, i) => {
      const h = (b.count / max) * (height - 16);
      const title = `${b.count} episode${b.count === 1 ? "" : "s"} with reward ${num(b.from)} to ${num(b.to)}`;
      return `<rect x="${(i * bw + bw * 0.1).toFixed(1)}" y="${(height - 14 - h).toFixed(1)}" width="${(bw * 0.8).toFixed(1)}" height="${Math.max(h, b.count ? 1 : 0).toFixed(1)}" fill="#10b981"><title>${esc(title)}</title></rect><text x="${(i * bw + bw / 2).toFixed(1)}" y="${height - 2}" font-size="10" text-anchor="middle" fill="#71717a">${esc(num(b.from, 2))}</text>`;
    })
    .join("");
  const label = `Rewards of ${bins.reduce((a, b) => a + b.count, 0)} completed episodes in ${bins.length} bins`;
  return `<figure><svg class="chart" role="img" aria-label="${esc(label)}" viewBox="0 0 ${w} ${height}" preserveAspectRatio="none">${bars}</svg><figcaption class="legend">${esc(label)}, from ${esc(num(bins[0]!.from))} to ${esc(num(bins.at(-1)!.to))}</figcaption></figure>`;
}

/** Tasks worst first: lowest mean reward, then fewest successes; tasks never completed last. */
export function worstFirst(tasks: readonly RunTaskRow[]): RunTaskRow[] {
  return [...tasks].sort(
    (a, b) =>
      (a.mean ?? Number.POSITIVE_INFINITY) - (b.mean ?? Number.POSITIVE_INFINITY) ||
      a.successes / (a.completed || 1) - b.successes / (b.completed || 1) ||
      a.index - b.index,
  );
}

function taskTable(s: RunSummary, o: ReportOptions): string {
  if (!s.tasks.length) return `<p class="muted">No tasks.</p>`;
  const rows = worstFirst(s.tasks)
    .map((t) => {
      const episodes = t.episodeIds
        .map((id, r) =>
          id
            ? `<a href="${esc(o.origin + trajectoryHref(id))}">${t.rewards[r] == null ? "—" : esc(num(t.rewards[r]))}</a>`
            : `<span class="muted">—</span>`,
        )
        .join(" ");
      return `<tr><td class="num mono">${t.index}</td><td class="num">${reward(t.mean)}</td><td class="num">${t.successes}/${t.completed}</td><td>${episodes}</td></tr>`;
    })
    .join("\n");
  return `<table><thead><tr><th class="num">Task</th><th class="num">Mean reward</th><th class="num">Successes</th><th>Episodes (reward per repeat; each opens its page)</th></tr></thead><tbody>
${rows}
</tbody></table>`;
}

function passTable(passAtK: Record<string, number | null>): string {
  const ks = Object.keys(passAtK);
  if (!ks.length) return "";
  return `<table><thead><tr>${ks.map((k) => `<th class="num">pass@${esc(k)}</th>`).join("")}</tr></thead><tbody><tr>${ks
    .map((k) => `<td class="num">${pct(passAtK[k])}</td>`)
    .join("")}</tr></tbody></table>`;
}

function errorsList(errors: RunSummary["errors"]): string {
  if (!errors.length) return `<p class="muted">No episode errored.</p>`;
  return `<table><thead><tr><th class="num">Episodes</th><th>Error</th></tr></thead><tbody>${errors
    .map((e) => `<tr><td class="num">${e.count}</td><td class="text">${esc(e.message)}</td></tr>`)
    .join("")}</tbody></table>`;
}

/** One run as a whole HTML document. */
export async function runReportHtml(s: RunSummary, o: ReportOptions): Promise<string> {
  const successes = s.successRate === null ? 0 : Math.round(s.successRate * s.completed);
  const facts = [
    fact("Run", `<a class="mono" href="${esc(o.origin + runHref(s.id))}">${esc(s.id)}</a>`),
    fact("Policy", esc(s.policyLabel)),
    fact("Environment", `<span class="mono">${esc(s.server)} / ${esc(s.env)} / ${esc(s.split)}</span>`),
    fact("Status", esc(s.status)),
    fact("Episodes", `${s.completed} completed of ${s.episodes}${s.errored ? `, ${s.errored} errored` : ""}`),
    fact(
      `Success rate (reward ≥ ${num(s.successAt)})`,
      `${pct(s.successRate)} ${interval(wilson95(successes, s.completed), (v) => pct(v))}`,
    ),
    fact("Mean reward", `${reward(s.meanReward)} ${interval(s.ci95, (v) => num(v))}`),
    fact("Tokens per episode", s.tokens.episodes ? num(s.tokens.total / s.tokens.episodes, 0) : "—"),
    fact("Time per episode (median)", esc(duration(s.durationMs?.p50))),
    fact("Started", esc(when(s.startedAt))),
    fact("Ended", esc(when(s.endedAt))),
  ];
  const title = `Run ${s.id}: ${s.policyLabel} on ${s.env}/${s.split}`;
  return `${await head(title)}<header class="doc"><h1>${esc(title)}</h1><p class="muted">A run report from ORS Playground: the success rate with its Wilson 95% interval, the mean reward with its t interval (docs/runs.md "Results"). Links open the playground's pages.</p></header>
<main>
<dl class="facts">${facts.join("")}</dl>
${s.error ? `<p class="note error">${esc(s.error)}</p>` : ""}
<h2>Rewards</h2>${histogramSvg(s.histogram)}
<h2>pass@k</h2>${passTable(s.passAtK) || `<p class="muted">No task completed.</p>`}
<h2>Tasks, worst first</h2>${taskTable(s, o)}
<h2>Errors</h2>${errorsList(s.errors)}
</main>
${foot(o.exportedAt ?? Date.now())}`;
}

/** A leaderboard as a whole HTML document. */
export async function leaderboardReportHtml(b: Leaderboard, o: ReportOptions): Promise<string> {
  const ks = [...new Set(b.rows.flatMap((r) => Object.keys(r.passAtK)))].sort(
    (x, y) => Number(x) - Number(y),
  );
  const rows = b.rows
    .map(
      (r, i) =>
        `<tr><td class="num">${i + 1}</td><td><a href="${esc(o.origin + runHref(r.runId))}">${esc(r.policyLabel)}</a></td><td class="mono">${esc(r.version ?? "—")}</td><td class="num">${r.n}</td><td class="num">${pct(r.successRate)} ${interval(r.success.ci95, pct)}</td><td class="num">${reward(r.meanReward)} ${interval(r.ci95, (v) => num(v))}</td>${ks
          .map((k) => `<td class="num">${pct(r.passAtK[k])}</td>`)
          .join(
            "",
          )}<td class="num">${num(r.tokensPerEpisode, 0)}</td><td class="num">${esc(duration(r.msPerEpisode))}</td></tr>`,
    )
    .join("\n");
  const title = `Leaderboard: ${b.env} / ${b.split} on ${b.server}`;
  const versions = b.versions.length
    ? `<p class="muted">Environment versions (the tool specs the episodes were played with): ${b.versions
        .map((v) => `${esc(v.version)} = <span class="mono">${esc(v.hash)}</span>`)
        .join(", ")}.</p>`
    : "";
  return `${await head(title)}<header class="doc"><h1>${esc(title)}</h1><p class="muted">Every run of this split, best success rate first (Wilson 95% intervals; mean reward with its t interval). ${b.rows.length} run${b.rows.length === 1 ? "" : "s"}.</p>${versions}</header>
<main>
${
  b.rows.length
    ? `<table><thead><tr><th class="num">#</th><th>Policy</th><th>Version</th><th class="num">n</th><th class="num">Success</th><th class="num">Mean reward</th>${ks
        .map((k) => `<th class="num">pass@${esc(k)}</th>`)
        .join("")}<th class="num">Tokens / episode</th><th class="num">Time / episode</th></tr></thead><tbody>
${rows}
</tbody></table>`
    : `<p class="muted">No run has played this split.</p>`
}
</main>
${foot(o.exportedAt ?? Date.now())}`;
}
