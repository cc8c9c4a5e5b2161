// The diff's report (docs/ci.md "Reports"): built from the changes and the behavioural diff, and
// written as the terminal's text, a short Markdown PR comment (verdict first, then breaking changes,
// then flips), and a bounded, versioned JSON document (`schemaVersion`, `omitted` counts where it
// was cut). Isomorphic and pure.
import type { BehaviourDiff, Flip } from "./behaviour";
import { type ChangeClass, type ChangeCounts, countChanges, type SurfaceChange, sortChanges } from "./types";

export const DIFF_SCHEMA_VERSION = 1;
/** Changes kept in the JSON report (the counts have them all). */
export const MAX_REPORT_CHANGES = 500;
/** Task indexes kept per list of flips. */
const MAX_LISTED_TASKS = 1000;

export interface DiffSide {
  /** The server as given (a URL, or a name the playground knows). */
  server: string;
  url: string;
  /** The environment compared (null: every one). */
  env: string | null;
}

export type DiffVerdict = "breaking" | "flips" | "compatible" | "cosmetic" | "unchanged";

export interface DiffReport {
  schemaVersion: typeof DIFF_SCHEMA_VERSION;
  format: "ors-diff";
  a: DiffSide;
  b: DiffSide;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  options: { tasks: number; prompts: number; seed: number; maxFlips: number };
  /** Worst first: breaking changes, flips beyond --max-flips, then the mildest class seen. */
  verdict: DiffVerdict;
  counts: ChangeCounts;
  /** Worst first, at most MAX_REPORT_CHANGES. */
  changes: SurfaceChange[];
  /** What could not be read, on either side (the comparison is then incomplete: exit 2). */
  unread: { side: "a" | "b"; env: string; error: string }[];
  behaviour: BehaviourDiff | null;
  /** How many were left out where the document was cut. */
  omitted: { changes: number; gained: number; lost: number; flips: number };
  /** Nothing breaking and no more flips than --max-flips: exit 0. */
  passed: boolean;
}

export interface BuildDiffReport {
  a: DiffSide;
  b: DiffSide;
  startedAt: number;
  options: DiffReport["options"];
  changes: readonly SurfaceChange[];
  unread: DiffReport["unread"];
  behaviour: BehaviourDiff | null;
}

export function flipCount(b: BehaviourDiff | null): number {
  return b ? b.gained.length + b.lost.length : 0;
}

export function buildDiffReport(x: BuildDiffReport): DiffReport {
  const finished = Date.now();
  const sorted = sortChanges(x.changes);
  const counts = countChanges(sorted);
  const flips = flipCount(x.behaviour);
  const tooMany = flips > x.options.maxFlips;
  const verdict: DiffVerdict = counts.breaking
    ? "breaking"
    : tooMany
      ? "flips"
      : counts.compatible
        ? "compatible"
        : counts.cosmetic
          ? "cosmetic"
          : "unchanged";
  const b = x.behaviour;
  return {
    schemaVersion: DIFF_SCHEMA_VERSION,
    format: "ors-diff",
    a: x.a,
    b: x.b,
    startedAt: new Date(x.startedAt).toISOString(),
    finishedAt: new Date(finished).toISOString(),
    durationMs: finished - x.startedAt,
    options: x.options,
    verdict,
    counts,
    changes: sorted.slice(0, MAX_REPORT_CHANGES),
    unread: x.unread,
    behaviour: b
      ? { ...b, gained: b.gained.slice(0, MAX_LISTED_TASKS), lost: b.lost.slice(0, MAX_LISTED_TASKS) }
      : null,
    omitted: {
      changes: Math.max(0, sorted.length - MAX_REPORT_CHANGES),
      gained: Math.max(0, (b?.gained.length ?? 0) - MAX_LISTED_TASKS),
      lost: Math.max(0, (b?.lost.length ?? 0) - MAX_LISTED_TASKS),
      flips: Math.max(0, flips - (b?.flips.length ?? 0)),
    },
    passed: !counts.breaking && !tooMany,
  };
}

const num = (x: number | null) => (x === null ? "—" : String(Number(x.toPrecision(4))));
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The verdict in a line: `breaking: 3 breaking changes, 1 compatible, 2 cosmetic; 1 flip (--max-flips 0)`. */
export function verdictLine(r: DiffReport): string {
  const c = r.counts;
  const parts = [
    c.breaking ? plural(c.breaking, "breaking change") : null,
    c.compatible ? `${c.compatible} compatible` : null,
    c.cosmetic ? `${c.cosmetic} cosmetic` : null,
  ].filter(Boolean);
  const surface = parts.length ? parts.join(", ") : "no surface change";
  const flips = r.behaviour
    ? `; ${plural(flipCount(r.behaviour), "flip")} (--max-flips ${r.options.maxFlips})`
    : "";
  const head = r.unread.length ? "incomplete" : r.verdict;
  return `${head}: ${surface}${flips}`;
}

export function sideLabel(s: DiffSide): string {
  const where = s.server === s.url ? s.url : `${s.server} (${s.url})`;
  return s.env ? `${where}, environment ${s.env}` : where;
}

export function behaviourLine(b: BehaviourDiff): string {
  const interval = b.ci95 ? ` (95% CI ${num(b.ci95[0])} to ${num(b.ci95[1])})` : "";
  return `replay of run ${b.run} on B${b.replayRun ? ` (run ${b.replayRun})` : ""}: ${b.paired} tasks paired; ${b.lost.length} lost, ${b.gained.length} gained; mean reward difference ${num(b.meanDelta)}${interval}`;
}

export function flipLine(f: Flip): string {
  const diff = f.firstDifference
    ? `first difference at ${f.firstDifference.step === null ? "the prompt" : `step ${f.firstDifference.step}`}: ${f.firstDifference.what}`
    : "no step differs (the success threshold decided)";
  return `task ${f.task} ${f.direction}: reward ${num(f.a.reward)} → ${num(f.b.reward)}; ${diff}`;
}

export interface DiffTextOptions {
  color?: boolean;
  /** The playground's URL the trajectory links start with. */
  appUrl?: string;
}

const COLORS: Record<ChangeClass, string> = {
  breaking: "\x1b[31m",
  compatible: "\x1b[33m",
  cosmetic: "\x1b[90m",
};
const MARKS: Record<ChangeClass, string> = { breaking: "✗", compatible: "+", cosmetic: "~" };
const BOLD = "\x1b[1m";
const DIM = "\x1b[2m";
const RESET = "\x1b[0m";

/** The terminal's report. */
export function formatDiffText(r: DiffReport, o: DiffTextOptions = {}): string {
  const c = (code: string, s: string) => (o.color ? `${code}${s}${RESET}` : s);
  const lines = [c(BOLD, `ORS diff: ${sideLabel(r.a)} → ${sideLabel(r.b)}`)];
  for (const u of r.unread)
    lines.push(`  ${c(COLORS.breaking, "!")} not read on ${u.side.toUpperCase()} (${u.env}): ${u.error}`);
  for (const ch of r.changes) {
    lines.push(`  ${c(COLORS[ch.class], `${MARKS[ch.class]} ${ch.class.padEnd(10)}`)} ${ch.message}`);
    lines.push(c(DIM, `      ${ch.env}${ch.path}`));
  }
  if (r.omitted.changes) lines.push(c(DIM, `  … and ${r.omitted.changes} more (counted in the verdict)`));
  if (!r.changes.length && !r.unread.length) lines.push("  no surface change");
  const b = r.behaviour;
  if (b) {
    lines.push("", c(BOLD, "Scores"), `  ${behaviourLine(b)}`);
    if (b.error) lines.push(`  ${c(COLORS.breaking, "!")} ${b.error}`);
    for (const f of b.flips) {
      lines.push(
        `  ${c(f.direction === "lost" ? COLORS.breaking : COLORS.compatible, f.direction === "lost" ? "▼" : "▲")} ${flipLine(f)}`,
      );
      if (f.compareHref) lines.push(c(DIM, `      compare: ${o.appUrl ?? ""}${f.compareHref}`));
    }
    if (r.omitted.flips) lines.push(c(DIM, `  … and ${r.omitted.flips} more flips`));
  }
  lines.push("", c(BOLD, `Verdict: ${verdictLine(r)}`));
  return `${lines.join("\n")}\n`;
}

const md = (s: string) => s.replace(/[|\\`*_[\]<>]/g, (ch) => `\\${ch}`).replace(/\r?\n/g, " ");
const VERDICT_ICONS: Record<DiffVerdict | "incomplete", string> = {
  breaking: "❌",
  flips: "❌",
  incomplete: "⚠️",
  compatible: "✅",
  cosmetic: "✅",
  unchanged: "✅",
};

/** A short Markdown PR comment: the verdict first, then the breaking changes, then the flips. */
export function formatDiffMarkdown(r: DiffReport, o: { appUrl?: string } = {}): string {
  const head = r.unread.length ? "incomplete" : r.verdict;
  const lines = [
    `### ${VERDICT_ICONS[head]} ORS diff: ${md(verdictLine(r))}`,
    "",
    `\`${md(sideLabel(r.a))}\` → \`${md(sideLabel(r.b))}\``,
  ];
  for (const u of r.unread)
    lines.push("", `⚠️ Not read on ${u.side.toUpperCase()} (${md(u.env)}): ${md(u.error)}`);
  const breaking = r.changes.filter((ch) => ch.class === "breaking");
  if (breaking.length) {
    lines.push("", "**Breaking changes**", "");
    for (const ch of breaking.slice(0, 50))
      lines.push(`- ${md(ch.message)} (\`${md(`${ch.env}${ch.path}`)}\`)`);
    if (breaking.length > 50 || r.omitted.changes)
      lines.push(`- … ${r.counts.breaking - Math.min(50, breaking.length)} more in the JSON report`);
  }
  const b = r.behaviour;
  if (b) {
    lines.push("", `**Scores**: ${md(behaviourLine(b))}`);
    if (b.error) lines.push("", `⚠️ ${md(b.error)}`);
    if (b.flips.length) {
      lines.push("", "| task | flip | reward A → B | first difference |", "| --- | --- | --- | --- |");
      const link = (f: Flip) =>
        f.compareHref && o.appUrl ? ` ([compare](${o.appUrl}${f.compareHref}))` : "";
      for (const f of b.flips.slice(0, 30)) {
        const at = f.firstDifference
          ? `${f.firstDifference.step === null ? "prompt" : `step ${f.firstDifference.step}`}: ${f.firstDifference.what}`
          : "—";
        lines.push(
          `| ${f.task} | ${f.direction} | ${num(f.a.reward)} → ${num(f.b.reward)} | ${md(at)}${link(f)} |`,
        );
      }
      if (flipCount(b) > 30) lines.push("", `… ${flipCount(b) - 30} more flips in the JSON report`);
    }
  }
  const rest = r.changes.filter((ch) => ch.class !== "breaking");
  if (rest.length) {
    lines.push(
      "",
      `<details><summary>${r.counts.compatible} compatible, ${r.counts.cosmetic} cosmetic</summary>`,
      "",
    );
    for (const ch of rest.slice(0, 50)) lines.push(`- ${ch.class}: ${md(ch.message)}`);
    lines.push("", "</details>");
  }
  return `${lines.join("\n")}\n`;
}

export function formatDiffJson(r: DiffReport): string {
  return `${JSON.stringify(r, null, 2)}\n`;
}
