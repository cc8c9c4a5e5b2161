// How a text block of environment output is meant to be read: Markdown, or plain text (and then
// whether it is preformatted: aligned columns that need a monospace font). Pure, no React.
//
// The Markdown detector is conservative: plain text is the default, because rendering plain text
// as Markdown loses what the author wrote (a `-` line becomes a bullet, `*` pairs in a formula
// become italics, a `# 3` line a heading, indentation collapses), while showing Markdown as plain
// text loses only decoration. So text is Markdown when it has
//   - a closed fenced code block (``` or ~~~), or
//   - a GFM table (a header row and a `|---|---|` delimiter row with as many cells), or
//   - at least two different kinds of Markdown syntax: ATX headings (`## Title`), list items,
//     block quotes, strong (`**x**`, `__x__`), emphasis (`*x*`, `_x_`), code spans, links.
// One kind alone is not enough: a report whose lines start with `- ` is a plain report (shown with
// its line breaks it reads the same), `#12` or `#tag` is no heading (no space), `snake_case` and
// `2*x + 3*y` are no emphasis. Text that looks preformatted (aligned columns, indented lines,
// JSON-like lines) stays plain unless it has a fence or a GFM table.

export interface TextKind {
  /** Render as Markdown by default. */
  markdown: boolean;
  /** Aligned or indented text: show it in a monospace font. */
  preformatted: boolean;
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})([^`]*)$/;
const HEADING = /^ {0,3}#{1,6}[ \t]+\S/;
const LIST_ITEM = /^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\S/;
const BLOCKQUOTE = /^ {0,3}>[ \t]?\S/;
// Delimiters must open after a non-word character and close before one, so `snake_case_name`,
// `__init__`-free identifiers and `2*x + 3*y` do not count.
const STRONG =
  /(?:^|[^\w*])\*\*[^\s*](?:[^*\n]*[^\s*])?\*\*(?![\w*])|(?:^|[^\w_])__[^\s_](?:[^_\n]*[^\s_])?__(?![\w_])/m;
const EMPHASIS =
  /(?:^|[^\w*])\*[^\s*](?:[^*\n]*[^\s*])?\*(?![\w*])|(?:^|[^\w_])_[^\s_](?:[^_\n]*[^\s_])?_(?![\w_])/m;
const CODE_SPAN = /(^|[^`])`[^`\n]+`(?!`)/m;
const LINK = /!?\[[^\]\n]+\]\([^)\s]+(?:\s+"[^"\n]*")?\)/;
/** A column gap inside a line (two spaces or a tab between words), as in an aligned table. */
const ALIGNED_GAP = /\S(?: {2,}|\t+)\S/;
const INDENTED = /^(?: {2,}|\t)\S/;
/** A line of JSON: a brace, a closing bracket, or an opening one before a value (not a `[link]`). */
const JSON_LINE = /^[ \t]*(?:[{}\]]|\[\s*$|\[\s*["\d{[-])/;
/** Two spaces after a sentence are a typing habit, not a column gap. */
const SENTENCE_GAP = /([.!?]) {2}(?=["'(A-Z])/g;
const BOX_DRAWING = /[\u2500-\u257f]/;

function splitRow(line: string): string[] | null {
  const trimmed = line.trim();
  if (!trimmed.includes("|")) return null;
  const inner = trimmed.replace(/^\|/, "").replace(/(?<!\\)\|$/, "");
  return inner.split(/(?<!\\)\|/).map((c) => c.trim());
}

const DELIMITER_CELL = /^:?-+:?$/;

function isDelimiterRow(line: string): string[] | null {
  const cells = splitRow(line);
  if (!cells || cells.length === 0 || !cells.every((c) => DELIMITER_CELL.test(c))) return null;
  // One column needs its pipes (`| --- |`), or `---` alone would be a rule or a setext heading.
  if (cells.length === 1 && !/^\s*\|.*\|\s*$/.test(line)) return null;
  return cells;
}

function hasTable(lines: readonly string[]): boolean {
  for (let i = 1; i < lines.length; i++) {
    const delimiter = isDelimiterRow(lines[i]!);
    if (!delimiter) continue;
    const header = splitRow(lines[i - 1]!);
    if (header && header.length === delimiter.length && !isDelimiterRow(lines[i - 1]!)) return true;
  }
  return false;
}

function hasClosedFence(lines: readonly string[]): boolean {
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE_OPEN.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    const close = new RegExp(`^ {0,3}${fence[0] === "`" ? "`" : "~"}{${fence.length},}[ \\t]*$`);
    for (let j = i + 1; j < lines.length; j++) if (close.test(lines[j]!)) return true;
  }
  return false;
}

/** The kinds of Markdown syntax in the text (see the file header), counted once each. */
export function markdownSyntaxKinds(text: string, lines: readonly string[] = text.split(/\r?\n/)): string[] {
  const kinds: string[] = [];
  if (lines.some((l) => HEADING.test(l))) kinds.push("heading");
  if (lines.some((l) => LIST_ITEM.test(l))) kinds.push("list");
  if (lines.some((l) => BLOCKQUOTE.test(l))) kinds.push("blockquote");
  if (STRONG.test(text)) kinds.push("strong");
  if (EMPHASIS.test(text)) kinds.push("emphasis");
  if (CODE_SPAN.test(text)) kinds.push("code");
  if (LINK.test(text)) kinds.push("link");
  return kinds;
}

/**
 * Whether the text reads better in a monospace font as it is: aligned columns (two or more lines
 * with column gaps), indented lines that are not list items, JSON-like lines, box drawing.
 */
export function looksPreformatted(text: string, lines: readonly string[] = text.split(/\r?\n/)): boolean {
  if (BOX_DRAWING.test(text)) return true;
  let evidence = 0;
  for (const line of lines) {
    const indentedNonList = INDENTED.test(line) && !LIST_ITEM.test(line);
    const aligned = ALIGNED_GAP.test(line.trim().replace(SENTENCE_GAP, "$1 "));
    if (aligned || indentedNonList || (JSON_LINE.test(line) && lines.length > 1)) {
      evidence++;
      if (evidence >= 2) return true;
    }
  }
  return false;
}

/** Whether the text is Markdown by the conservative rules of this file. */
export function isMarkdown(text: string): boolean {
  return classifyText(text).markdown;
}

/** How a text block reads by default: Markdown or plain, and whether it is preformatted. */
export function classifyText(text: string): TextKind {
  const lines = text.split(/\r?\n/);
  if (hasClosedFence(lines) || hasTable(lines)) return { markdown: true, preformatted: false };
  const preformatted = looksPreformatted(text, lines);
  if (preformatted) return { markdown: false, preformatted };
  return { markdown: markdownSyntaxKinds(text, lines).length >= 2, preformatted };
}

/**
 * Whether Markdown could render the text differently from plain text at all: a line break or a
 * character Markdown gives meaning to. A block without any needs no Markdown/Raw switch.
 */
export function couldBeMarkdown(text: string): boolean {
  return /\n|[*_`[\]|<\\]|~~|^\s*(?:[-+>#=]|\d+[.)]\s)/.test(text);
}
