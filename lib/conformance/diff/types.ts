// The surface diff's model (isomorphic; docs/ci.md "What diff compares"): the three classes of
// change — `breaking`, `compatible`, `cosmetic` — each change with the environment, what it is about
// and its path in that environment's surface, and the versioned report `diff --json` writes.

/** The classes of change. Their names are contracts (scripts read them from the JSON report). */
export const CHANGE_CLASSES = ["breaking", "compatible", "cosmetic"] as const;
export type ChangeClass = (typeof CHANGE_CLASSES)[number];

/** What a class means, in a line (the text, the Markdown and the UI say the same). */
export const CHANGE_CLASS_TITLES: Record<ChangeClass, string> = {
  breaking: "breaks clients, recorded runs or golden episodes of the old version",
  compatible: "old clients and recordings keep working",
  cosmetic: "descriptions, titles, ordering: nothing a client reads changes",
};

/** Each class's colour, the same in the terminal (red, yellow, grey) and in the UI's badges. */
export const CHANGE_CLASS_COLORS: Record<ChangeClass, "red" | "amber" | "neutral"> = {
  breaking: "red",
  compatible: "amber",
  cosmetic: "neutral",
};

/** One change between the two versions of an environment. */
export interface SurfaceChange {
  class: ChangeClass;
  /** What kind of change, e.g. `tool-removed`, `required-added`, `enum-narrowed`, `task-removed`. */
  kind: string;
  /** The environment (as A names it). */
  env: string;
  /** What it is about, in words: `tool submit`, `split train`, `task train/3`, `prompt of train/3`. */
  subject: string;
  /**
   * Where in the environment's surface, as a JSON pointer: `/tools/submit/input_schema/properties/answer/type`,
   * `/splits/train`, `/splits/train/tasks/3`, `/prompts/train/3`.
   */
  path: string;
  /** The change in a sentence. */
  message: string;
  /** The value before and after where there is one (kept short). */
  before?: unknown;
  after?: unknown;
}

export type ChangeCounts = Record<ChangeClass, number>;

export function emptyChangeCounts(): ChangeCounts {
  return { breaking: 0, compatible: 0, cosmetic: 0 };
}

export function countChanges(changes: readonly SurfaceChange[]): ChangeCounts {
  const counts = emptyChangeCounts();
  for (const c of changes) counts[c.class]++;
  return counts;
}

/** Worst first: breaking, compatible, cosmetic. */
export function classRank(c: ChangeClass): number {
  return CHANGE_CLASSES.indexOf(c);
}

/** The changes sorted worst first, keeping their order within a class. */
export function sortChanges(changes: readonly SurfaceChange[]): SurfaceChange[] {
  return changes
    .map((c, i) => ({ c, i }))
    .sort((x, y) => classRank(x.c.class) - classRank(y.c.class) || x.i - y.i)
    .map((x) => x.c);
}

/** A JSON pointer from its segments (`~` and `/` escaped). */
export function pointer(segments: readonly (string | number)[]): string {
  return segments.map((s) => `/${String(s).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}
