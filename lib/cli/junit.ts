// JUnit XML, the test report format CI systems read (GitHub Actions reporters, GitLab, Jenkins):
// <testsuites> of <testsuite>s of <testcase>s, each passing or with a <failure> (the test found a
// difference), an <error> (it could not run) or <skipped>. Text is escaped for XML 1.0.

export interface JUnitOutcome {
  /** One line: what went wrong. */
  message: string;
  /** A short category, e.g. `difference` or `unreachable`. */
  type: string;
  /** The details (a readable diff), plain text. */
  text?: string;
}

export interface JUnitCase {
  /** Groups cases in CI views (dotted, like a class name). */
  classname: string;
  name: string;
  /** Seconds. */
  time: number;
  failure?: JUnitOutcome;
  error?: JUnitOutcome;
  skipped?: { message: string };
  /** Extra output shown with the case. */
  systemOut?: string;
}

export interface JUnitSuite {
  name: string;
  /** When the suite started (ms since the epoch). */
  timestamp: number;
  cases: JUnitCase[];
}

/** Characters XML 1.0 cannot carry at all (control characters, lone surrogates, U+FFFE/F). */
const INVALID_XML =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** ANSI colour sequences: never in a report file. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character starts the sequence
const ANSI = /\u001b\[[0-9;]*m/g;

/** Text as XML character data (`attribute`: as an attribute value, quotes and line ends escaped too). */
export function xmlEscape(text: string, attribute = false): string {
  const s = text
    .replace(ANSI, "")
    .replace(INVALID_XML, "\uFFFD")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
  return attribute
    ? s.replace(/"/g, "&quot;").replace(/\n/g, "&#10;").replace(/\r/g, "&#13;").replace(/\t/g, "&#9;")
    : s;
}

function attrs(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([k, v]) => ` ${k}="${xmlEscape(String(v), true)}"`)
    .join("");
}

const seconds = (s: number) => (Math.max(0, s) || 0).toFixed(3);

function counts(cases: readonly JUnitCase[]) {
  return {
    tests: cases.length,
    failures: cases.filter((c) => c.failure).length,
    errors: cases.filter((c) => c.error).length,
    skipped: cases.filter((c) => c.skipped).length,
    time: seconds(cases.reduce((s, c) => s + c.time, 0)),
  };
}

function outcome(tag: "failure" | "error", o: JUnitOutcome): string {
  const open = `<${tag}${attrs({ message: o.message, type: o.type })}`;
  return o.text ? `${open}>${xmlEscape(o.text)}</${tag}>` : `${open}/>`;
}

function testcase(c: JUnitCase): string {
  const head = `    <testcase${attrs({ classname: c.classname, name: c.name, time: seconds(c.time) })}`;
  const body: string[] = [];
  if (c.failure) body.push(`      ${outcome("failure", c.failure)}`);
  if (c.error) body.push(`      ${outcome("error", c.error)}`);
  if (c.skipped) body.push(`      <skipped${attrs({ message: c.skipped.message })}/>`);
  if (c.systemOut) body.push(`      <system-out>${xmlEscape(c.systemOut)}</system-out>`);
  return body.length ? `${head}>\n${body.join("\n")}\n    </testcase>` : `${head}/>`;
}

/**
 * The whole report as a JUnit XML document.
 *
 * @example
 * junitXml("ORS golden episodes", [
 *   { name: "golden.jsonl", timestamp: Date.now(), cases: [{ classname: "golden.local.math", name: "abc", time: 0.4 }] },
 * ]);
 */
export function junitXml(name: string, suites: readonly JUnitSuite[]): string {
  const all = suites.flatMap((s) => s.cases);
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites${attrs({ name, ...counts(all) })}>`];
  for (const s of suites) {
    const open = `  <testsuite${attrs({
      name: s.name,
      ...counts(s.cases),
      timestamp: new Date(s.timestamp).toISOString().replace(/\.\d{3}Z$/, ""),
    })}`;
    if (!s.cases.length) {
      lines.push(`${open}/>`);
      continue;
    }
    lines.push(`${open}>`);
    for (const c of s.cases) lines.push(testcase(c));
    lines.push("  </testsuite>");
  }
  lines.push("</testsuites>");
  return `${lines.join("\n")}\n`;
}
