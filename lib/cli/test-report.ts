// The reports of `test` (lib/cli/test-command.ts) for people and for CI: each golden episode's
// result as text (the differences of each step, changed words marked, in colour on a terminal), the
// summary line, and JUnit XML (a suite per file, a testcase per episode).

import type { GoldenReport, GoldenResult, GoldenStepDifference, GoldenStepView } from "@/lib/episodes/golden";
import { diffText, stableStringify } from "@/lib/trajectory/diff";
import { type JUnitCase, type JUnitSuite, junitXml } from "./junit";

const C = {
  red: (s: string) => `\u001b[31m${s}\u001b[39m`,
  green: (s: string) => `\u001b[32m${s}\u001b[39m`,
  yellow: (s: string) => `\u001b[33m${s}\u001b[39m`,
  dim: (s: string) => `\u001b[2m${s}\u001b[22m`,
  bold: (s: string) => `\u001b[1m${s}\u001b[22m`,
  del: (s: string) => `\u001b[9;31m${s}\u001b[29;39m`,
  add: (s: string) => `\u001b[4;32m${s}\u001b[24;39m`,
};
type Paint = typeof C;
const PLAIN: Paint = {
  red: (s) => s,
  green: (s) => s,
  yellow: (s) => s,
  dim: (s) => s,
  bold: (s) => s,
  del: (s) => `[-${s}-]`,
  add: (s) => `{+${s}+}`,
};

const SHORT = 160;

function clip(s: string, n = 300): string {
  return s.length > n ? `${s.slice(0, n)}… (${s.length} characters)` : s;
}

/** The word diff of two texts (diffText, the one the UI shows) painted, long unchanged runs elided. */
function paintedDiff(expected: string, got: string, p: Paint): string {
  return diffText(expected, got)
    .map((op) => {
      if (op.op === "del") return p.del(op.text);
      if (op.op === "add") return p.add(op.text);
      return op.text.length > 120 ? `${op.text.slice(0, 50)}${p.dim(" … ")}${op.text.slice(-50)}` : op.text;
    })
    .join("");
}

/** Indents every line after the first to `pad`. */
function hang(text: string, pad: string): string {
  return text.replace(/\n/g, `\n${pad}`);
}

function showValue(v: unknown): string {
  if (v === null || v === undefined) return "none";
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number") return String(v);
  return clip(stableStringify(v));
}

function textField(name: string, expected: string | null, got: string | null, p: Paint): string[] {
  const pad = "        ";
  if (expected === null || got === null)
    return [`      ${name}: expected ${showValue(expected)}, got ${showValue(got)}`];
  const short = expected.length <= SHORT && got.length <= SHORT && !`${expected}${got}`.includes("\n");
  const lines = [`      ${name}:`];
  if (short) {
    lines.push(`${pad}expected: ${expected}`, `${pad}got:      ${got}`);
  }
  lines.push(`${pad}changed:  ${hang(paintedDiff(expected, got, p), `${pad}          `)}`);
  return lines;
}

function stepLines(d: GoldenStepDifference, p: Paint): string[] {
  const e = d.expected;
  const g = d.got;
  const head = (s: GoldenStepView) => `${s.tool} ${clip(stableStringify(s.input), 120)}`;
  if (!g) return [`    step ${d.step} · ${head(e!)}: ${p.red("missing")}: the replay has no step ${d.step}`];
  if (!e) return [`    step ${d.step} · ${head(g)}: ${p.red("extra")}: the recording has no step ${d.step}`];
  const lines = [`    step ${d.step} · ${head(e)} · differs: ${d.fields.join(", ")}`];
  for (const f of d.fields) {
    if (f === "observation") lines.push(...textField("observation", e.observation, g.observation, p));
    else if (f === "error") lines.push(...textField("error", e.error, g.error, p));
    else if (f === "ok")
      lines.push(
        `      ok: expected ${e.ok === null ? "running" : e.ok ? "ok" : "failed"}, got ${g.ok ? "ok" : "failed"}`,
      );
    else lines.push(`      ${f}: expected ${showValue(e[f])}, got ${showValue(g[f])}`);
  }
  return lines;
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** One episode's result as text: a line, then the differences or the error. */
export function formatResultText(r: GoldenResult, o: { color?: boolean } = {}): string {
  const p = o.color ? C : PLAIN;
  const mark = r.updated
    ? p.yellow("UPDATED")
    : {
        pass: p.green("PASS "),
        fail: p.red("FAIL "),
        error: p.red("ERROR"),
        skipped: p.yellow("SKIP "),
      }[r.status];
  const what = `${r.env ?? "unknown environment"} · ${r.task} · ${r.steps} step${r.steps === 1 ? "" : "s"}`;
  const lines = [
    `${mark} ${p.bold(r.id)}  ${what}  ${p.dim(`(${r.server} → ${r.url}, ${secs(r.duration_ms)})`)}`,
  ];
  if (r.error)
    lines.push(`    ${r.status === "skipped" ? "" : `${r.error.kind}: `}${hang(r.error.message, "    ")}`);
  if (r.prompt) lines.push("    prompt differs", ...textField("prompt", r.prompt.expected, r.prompt.got, p));
  for (const d of r.differences) lines.push(...stepLines(d, p));
  if (r.updated)
    lines.push(
      `    re-recorded: ${r.source ?? "its file"} now holds what came back (same id, golden mark kept)`,
    );
  if (r.update_error) lines.push(`    ${p.red("not re-recorded")}: ${r.update_error}`);
  return `${lines.join("\n")}\n`;
}

export function describeOptions(rep: GoldenReport["options"]): string {
  const parts: string[] = [];
  if (rep.ignore.length) parts.push(`ignoring ${rep.ignore.join(", ")}`);
  if (rep.reward_tolerance) parts.push(`reward tolerance ${rep.reward_tolerance}`);
  if (rep.normalize_whitespace) parts.push("whitespace normalised");
  if (rep.masks.length) parts.push(`masks ${rep.masks.map((m) => `/${m}/`).join(" ")}`);
  return parts.length ? parts.join("; ") : "exactly";
}

export function formatSummaryText(report: GoldenReport, o: { color?: boolean } = {}): string {
  const p = o.color ? C : PLAIN;
  const s = report.summary;
  const rerecorded = s.updated !== undefined && s.total > 0 && s.passed + s.updated === s.total;
  const verdict = s.ok ? p.green("ok") : rerecorded ? p.yellow("re-recorded") : p.red("FAILED");
  const updated = s.updated !== undefined ? ` (${s.updated} re-recorded)` : "";
  return (
    `\nSummary: ${s.passed} passed, ${s.failed} failed${updated}, ${s.errors} error${s.errors === 1 ? "" : "s"}, ` +
    `${s.skipped} skipped (${s.total} golden episode${s.total === 1 ? "" : "s"}, compared ${describeOptions(report.options)}, ` +
    `${secs(report.duration_ms)}): ${verdict}\n`
  );
}

// ---- JUnit ----

/** The report as JUnit XML: a suite per file, a testcase per episode. */
export function goldenJUnit(report: GoldenReport): string {
  const suites = new Map<string, JUnitSuite>();
  for (const r of report.results) {
    const name = r.source ?? "golden episodes";
    let suite = suites.get(name);
    if (!suite) {
      suite = { name, timestamp: report.started_at, cases: [] };
      suites.set(name, suite);
    }
    const c: JUnitCase = {
      classname: `golden.${r.server}.${r.env ?? "unknown"}`,
      name: `${r.id} (${r.env ?? "unknown"} ${r.task})`,
      time: r.duration_ms / 1000,
    };
    if (r.status === "fail") {
      const n = r.differences.length;
      const first = r.differences[0];
      const message = [
        r.prompt ? "the prompt differs" : "",
        n
          ? `${n} step${n === 1 ? " differs" : "s differ"} (first: step ${first!.step}, ${first!.fields.join(", ")})`
          : "",
      ]
        .filter(Boolean)
        .join("; ");
      c.failure = {
        message: r.updated ? `re-recorded: ${message}` : message,
        type: "difference",
        text: formatResultText(r),
      };
    } else if (r.status === "error") {
      c.error = { message: `${r.error!.kind}: ${r.error!.message}`, type: r.error!.kind };
    } else if (r.status === "skipped") {
      c.skipped = { message: r.error?.message ?? "not run" };
    }
    suite.cases.push(c);
  }
  return junitXml("ORS golden episodes", [...suites.values()]);
}
