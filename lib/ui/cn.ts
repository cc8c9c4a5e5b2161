// Joins class names, and lets a later Tailwind class override an earlier one of the same kind
// (`cn("px-2 text-sm", "px-4")` → "text-sm px-4"), so components take `className` overrides.
// A small resolver for the utilities this app uses, instead of tailwind-merge (8.5 kB gzipped on
// every page's first load): classes it doesn't recognise are kept as they are.
import { type ClassValue, clsx } from "clsx";

const COLOR = "(?:inherit|current|transparent|black|white|[a-z]+-\\d{2,3})(?:\\/\\d+)?";
const SIDES = "(?:tl|tr|bl|br|t|b|l|r|s|e)";

/** [pattern, group] pairs; the group may use the pattern's first capture. */
const GROUPS: [RegExp, string][] = [
  [/^(?:block|inline-block|inline|flex|inline-flex|grid|inline-grid|hidden|contents|table)$/, "display"],
  [/^(?:static|fixed|absolute|relative|sticky)$/, "position"],
  [/^(p[xytrbl]?)-/, "$1"],
  [/^(m[xytrbl]?)-/, "$1"],
  [/^(min-w|max-w|min-h|max-h|w|h|size)-/, "$1"],
  [/^(gap(?:-[xy])?)-/, "$1"],
  [/^(top|left|right|bottom|inset(?:-[xy])?)-/, "$1"],
  [/^(z|opacity|order|basis|grid-cols|col-span|leading|tracking|cursor|whitespace)-/, "$1"],
  [/^(overflow(?:-[xy])?)-/, "$1"],
  [new RegExp(`^rounded(?:-(${SIDES}))?(?:-(?:none|xs|sm|md|lg|xl|2xl|3xl|full|\\[.+\\]))?$`), "rounded-$1"],
  [/^text-(?:xs|sm|base|lg|[2-9]?xl|\[\d[^\]]*\])$/, "text-size"],
  [/^text-(?:left|center|right|justify|start|end)$/, "text-align"],
  [new RegExp(`^text-${COLOR}$`), "text-color"],
  [new RegExp(`^bg-${COLOR}$`), "bg-color"],
  [new RegExp(`^border-${COLOR}$`), "border-color"],
  [/^font-(?:thin|extralight|light|normal|medium|semibold|bold|extrabold|black)$/, "font-weight"],
  [/^font-(?:sans|serif|mono)$/, "font-family"],
  [/^flex-(?:1|auto|initial|none)$/, "flex"],
  [/^flex-(?:row|col)(?:-reverse)?$/, "flex-direction"],
  [/^flex-(?:wrap|wrap-reverse|nowrap)$/, "flex-wrap"],
  [/^items-(?:start|end|center|baseline|stretch)$/, "align-items"],
  [/^justify-(?:start|end|center|between|around|evenly|stretch|normal)$/, "justify-content"],
];

/** The conflict group of a class (its variants included), or null when unknown. */
export function classGroup(cls: string): string | null {
  let depth = 0;
  let split = -1;
  for (let i = 0; i < cls.length; i++) {
    const c = cls[i];
    if (c === "[") depth++;
    else if (c === "]") depth--;
    else if (c === ":" && depth === 0) split = i;
  }
  const variants = cls.slice(0, split + 1);
  let base = cls.slice(split + 1);
  if (base.startsWith("!")) base = base.slice(1);
  if (base.endsWith("!")) base = base.slice(0, -1);
  if (base.startsWith("-")) base = base.slice(1);
  for (const [re, group] of GROUPS) {
    const m = re.exec(base);
    if (m) return variants + group.replace("$1", m[1] ?? "");
  }
  return null;
}

export function mergeClasses(classes: string): string {
  const list = classes.split(/\s+/).filter(Boolean);
  const seen = new Set<string>();
  const out: string[] = [];
  for (let i = list.length - 1; i >= 0; i--) {
    const cls = list[i]!;
    const key = classGroup(cls) ?? `=${cls}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(cls);
  }
  return out.reverse().join(" ");
}

/** Merged class strings by their input: a list of thousands of rows asks for the same few again and again. */
const merged = new Map<string, string>();
const MAX_MERGED = 500;

export function cn(...inputs: ClassValue[]): string {
  const classes = clsx(inputs);
  let out = merged.get(classes);
  if (out === undefined) {
    out = mergeClasses(classes);
    // Bounded: class strings built from data (a rare case) cannot grow it without end.
    if (merged.size >= MAX_MERGED) merged.clear();
    merged.set(classes, out);
  }
  return out;
}
