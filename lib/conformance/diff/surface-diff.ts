// Two surfaces compared (docs/ci.md "What diff compares"): environments, tools (a rename shows as one
// when the input schemas match), each tool's input schema as JSON Schema (./schema-diff.ts), splits
// (names, types, counts; a rename when the tasks match), the task specs by index, the sampled
// prompts and task tools — every change classed breaking, compatible or cosmetic. Isomorphic, pure.
import { sameJson } from "@/lib/trajectory/diff";
import { diffSchemas, sameSchema, shortValue } from "./schema-diff";
import type { Surface, SurfaceEnvironment, SurfacePrompt, SurfaceSplit, SurfaceTool } from "./surface";
import { type ChangeClass, pointer, type SurfaceChange } from "./types";

/** Indexes listed in one change at most (the count says how many there were). */
const MAX_LISTED = 20;

class Changes {
  readonly list: SurfaceChange[] = [];
  constructor(private readonly env: string) {}

  add(
    c: ChangeClass,
    kind: string,
    subject: string,
    path: (string | number)[],
    message: string,
    before?: unknown,
    after?: unknown,
  ) {
    const change: SurfaceChange = { class: c, kind, env: this.env, subject, path: pointer(path), message };
    if (before !== undefined) change.before = shortValue(before);
    if (after !== undefined) change.after = shortValue(after);
    this.list.push(change);
  }
}

function listed(indexes: readonly number[]): string {
  const shown = indexes.slice(0, MAX_LISTED).join(", ");
  return indexes.length > MAX_LISTED ? `${shown} … (${indexes.length} in all)` : shown;
}

/** The tools of A and B: removed, added, renamed (same schema), and each common one's schema. */
function compareTools(
  out: Changes,
  a: readonly SurfaceTool[],
  b: readonly SurfaceTool[],
  at: (string | number)[],
  label: string,
) {
  const byB = new Map(b.map((t) => [t.name, t]));
  const byA = new Map(a.map((t) => [t.name, t]));
  const removed = a.filter((t) => !byB.has(t.name));
  const added = b.filter((t) => !byA.has(t.name));
  for (const r of removed) {
    const i = added.findIndex((d) => sameSchema(r.input_schema, d.input_schema));
    if (i >= 0) {
      const d = added.splice(i, 1)[0]!;
      out.add(
        "breaking",
        "tool-renamed",
        `${label}${r.name}`,
        [...at, r.name],
        `tool ${r.name} renamed to ${d.name} (the same input schema${r.description === d.description ? " and description" : ""})`,
        r.name,
        d.name,
      );
    } else
      out.add("breaking", "tool-removed", `${label}${r.name}`, [...at, r.name], `tool ${r.name} removed`);
  }
  for (const d of added)
    out.add("compatible", "tool-added", `${label}${d.name}`, [...at, d.name], `tool ${d.name} added`);
  for (const ta of a) {
    const tb = byB.get(ta.name);
    if (!tb) continue;
    const subject = `${label}${ta.name}`;
    if (ta.description !== tb.description)
      out.add(
        "cosmetic",
        "description-changed",
        subject,
        [...at, ta.name, "description"],
        `the description of tool ${ta.name} changed`,
        ta.description,
        tb.description,
      );
    for (const c of diffSchemas(ta.input_schema, tb.input_schema))
      out.add(
        c.class,
        c.kind,
        subject,
        [...at, ta.name, "input_schema", ...c.path],
        `tool ${ta.name}, ${c.message}`,
        c.before,
        c.after,
      );
  }
  const common = (x: readonly SurfaceTool[], other: Map<string, SurfaceTool>) =>
    x.filter((t) => other.has(t.name)).map((t) => t.name);
  const orderA = common(a, byB);
  const orderB = common(b, byA);
  if (orderA.join("\u0000") !== orderB.join("\u0000"))
    out.add(
      "cosmetic",
      "tools-reordered",
      label === "tool " ? "tools" : label.trim(),
      at,
      "the tools are listed in another order",
      orderA,
      orderB,
    );
}

const sameTasks = (a: SurfaceSplit, b: SurfaceSplit) =>
  a.count === b.count &&
  a.tasks.length === b.tasks.length &&
  a.tasks.every((t, i) => t.hash === b.tasks[i]!.hash);

/** The task specs of one split by index: changed, removed, added, moved; and the count beyond them. */
function compareTaskSpecs(out: Changes, a: SurfaceSplit, b: SurfaceSplit): Set<number> {
  const subject = `split ${a.name}`;
  const at = ["splits", a.name, "tasks"];
  const ha = a.tasks.map((t) => t.hash);
  const hb = b.tasks.map((t) => t.hash);
  const inA = new Set(ha);
  const inB = new Set(hb);
  const changed: number[] = [];
  for (let i = 0; i < Math.min(ha.length, hb.length); i++)
    if (ha[i] !== hb[i] && !inB.has(ha[i]!) && !inA.has(hb[i]!)) changed.push(i);
  const skip = new Set(changed);
  const removed = ha.flatMap((h, i) => (!inB.has(h) && !skip.has(i) ? [i] : []));
  const added = hb.flatMap((h, i) => (!inA.has(h) && !skip.has(i) ? [i] : []));
  const firstIn = new Map<string, number>();
  hb.forEach((h, i) => {
    if (!firstIn.has(h)) firstIn.set(h, i);
  });
  const moved = ha.flatMap((h, i) => (inB.has(h) && hb[i] !== h ? [i] : []));
  /** A change of the tasks at `indexes`, located at the first of them; none when there are none. */
  const tasksChange = (c: ChangeClass, kind: string, indexes: number[], message: () => string) => {
    if (indexes.length) out.add(c, kind, subject, [...at, indexes[0]!], message());
  };
  const tasks = (indexes: number[]) => `${indexes.length === 1 ? "task" : "tasks"} ${listed(indexes)}`;
  if (changed.length)
    out.add(
      "breaking",
      "task-changed",
      subject,
      [...at, changed[0]!],
      `the task specs of ${a.name} at ${changed.length === 1 ? "index" : "indexes"} ${listed(changed)} changed (recorded runs and golden episodes on them no longer apply)`,
      changed.length === 1 ? a.tasks[changed[0]!]!.spec : undefined,
      changed.length === 1 ? b.tasks[changed[0]!]!.spec : undefined,
    );
  tasksChange("breaking", "task-removed", removed, () => `${tasks(removed)} of ${a.name} removed`);
  tasksChange("compatible", "task-added", added, () => `${tasks(added)} of ${b.name} added`);
  tasksChange("breaking", "task-moved", moved, () => {
    const shown = moved.slice(0, 3).map((i) => `${i} → ${firstIn.get(ha[i]!)}`);
    return `${tasks(moved)} of ${a.name} moved to other indexes (${shown.join(", ")}${moved.length > 3 ? ", …" : ""})`;
  });
  // Beyond the tasks read, only the count tells.
  const readA = a.tasks.length;
  if (a.count !== b.count && (a.count > readA || b.count > b.tasks.length)) {
    const fewer = b.count < a.count;
    out.add(
      fewer ? "breaking" : "compatible",
      fewer ? "task-removed" : "task-added",
      subject,
      ["splits", a.name, "count"],
      `${a.name} has ${b.count} tasks, was ${a.count}`,
      a.count,
      b.count,
    );
  }
  return new Set([...changed, ...removed, ...moved]);
}

/** Split `a` (known as `b` now) changed its type. */
function typeChange(out: Changes, a: SurfaceSplit, b: SurfaceSplit) {
  if (a.type !== b.type)
    splitChange(out, "breaking", "split-type-changed", a.name, `is now of type ${b.type}, was ${a.type}`, {
      field: "type",
      before: a.type,
      after: b.type,
    });
}

/** A change of split `name` (located at it, or at its `field`), its message saying what of it. */
function splitChange(
  out: Changes,
  c: ChangeClass,
  kind: string,
  name: string,
  what: string,
  o: { field?: string; before?: unknown; after?: unknown } = {},
) {
  const at = o.field ? ["splits", name, o.field] : ["splits", name];
  out.add(c, kind, `split ${name}`, at, `split ${name} ${what}`, o.before, o.after);
}

function compareSplits(out: Changes, a: SurfaceEnvironment, b: SurfaceEnvironment): Map<string, Set<number>> {
  const gone = new Map<string, Set<number>>();
  const byB = new Map(b.splits.map((s) => [s.name, s]));
  const byA = new Map(a.splits.map((s) => [s.name, s]));
  const added = b.splits.filter((s) => !byA.has(s.name));
  for (const s of a.splits.filter((x) => !byB.has(x.name))) {
    const i = added.findIndex((d) => sameTasks(s, d));
    if (i >= 0) {
      const d = added.splice(i, 1)[0]!;
      splitChange(
        out,
        "breaking",
        "split-renamed",
        s.name,
        `renamed to ${d.name} (the same ${s.count} tasks)`,
        {
          before: s.name,
          after: d.name,
        },
      );
      typeChange(out, s, d);
    } else splitChange(out, "breaking", "split-removed", s.name, `removed (${s.count} tasks)`);
    gone.set(s.name, new Set(s.tasks.map((t) => t.index)));
  }
  for (const d of added) splitChange(out, "compatible", "split-added", d.name, `added (${d.count} tasks)`);
  for (const sa of a.splits) {
    const sb = byB.get(sa.name);
    if (!sb) continue;
    typeChange(out, sa, sb);
    gone.set(sa.name, compareTaskSpecs(out, sa, sb));
  }
  const order = (x: SurfaceSplit[], other: Map<string, SurfaceSplit>) =>
    x.filter((s) => other.has(s.name)).map((s) => s.name);
  if (order(a.splits, byB).join("\u0000") !== order(b.splits, byA).join("\u0000"))
    out.add(
      "cosmetic",
      "splits-reordered",
      "splits",
      ["splits"],
      "the splits are listed in another order",
      order(a.splits, byB),
      order(b.splits, byA),
    );
  return gone;
}

const squash = (p: SurfacePrompt) =>
  (p.blocks ?? [])
    .map((b) => (b.type === "text" ? b.text.replace(/\s+/g, " ").trim() : b.data))
    .join("\u0000");

function comparePrompts(
  out: Changes,
  a: SurfaceEnvironment,
  b: SurfaceEnvironment,
  gone: Map<string, Set<number>>,
) {
  const byB = new Map(b.prompts.map((p) => [`${p.split}/${p.index}`, p]));
  for (const pa of a.prompts) {
    const key = `${pa.split}/${pa.index}`;
    const pb = byB.get(key);
    if (!pb || !gone.has(pa.split) || gone.get(pa.split)!.has(pa.index)) continue;
    const subject = `prompt of ${key}`;
    const at = ["prompts", pa.split, pa.index];
    if (pa.hash !== null && pb.hash === null)
      out.add(
        "breaking",
        "task-unplayable",
        `task ${key}`,
        at,
        `task ${key} can no longer be started: ${pb.error}`,
      );
    else if (pa.hash === null && pb.hash !== null)
      out.add(
        "compatible",
        "task-playable",
        `task ${key}`,
        at,
        `task ${key} can be started now (it could not: ${pa.error})`,
      );
    else if (pa.hash !== pb.hash) {
      const cosmetic = squash(pa) === squash(pb);
      const text = (p: SurfacePrompt) =>
        (p.blocks ?? []).map((x) => (x.type === "text" ? x.text : `[image ${x.mimeType}]`)).join("\n");
      out.add(
        cosmetic ? "cosmetic" : "compatible",
        cosmetic ? "prompt-whitespace" : "prompt-changed",
        subject,
        at,
        cosmetic ? `the prompt of ${key} changed in whitespace only` : `the prompt of ${key} changed`,
        text(pa),
        text(pb),
      );
    }
    if (pa.tools && pb.tools && !sameJson(pa.tools, pb.tools)) {
      const taskChanges = new Changes(a.name);
      compareTools(taskChanges, pa.tools, pb.tools, [...at, "tools"], `task tool (${key}) `);
      // What the environment's own tools already showed is not said again for each task.
      const seen = new Set(out.list.map((c) => `${c.kind}|${c.message}`));
      for (const c of taskChanges.list) if (!seen.has(`${c.kind}|${c.message}`)) out.list.push(c);
    }
  }
}

/** The changes from environment `a` to `b` (their names may differ: `--env` on each side). */
export function diffEnvironment(a: SurfaceEnvironment, b: SurfaceEnvironment): SurfaceChange[] {
  const out = new Changes(a.name);
  compareTools(out, a.tools, b.tools, ["tools"], "tool ");
  const gone = compareSplits(out, a, b);
  comparePrompts(out, a, b, gone);
  return out.list;
}

/** An environment one side has and the other not: removed breaks its users, added does not. */
function oneSided(env: string, how: "removed" | "added"): SurfaceChange {
  return {
    class: how === "removed" ? "breaking" : "compatible",
    kind: `environment-${how}`,
    env,
    subject: `environment ${env}`,
    path: "",
    message: `environment ${env} ${how}`,
  };
}

/**
 * The changes from surface `a` to `b`: environments removed (breaking) and added (compatible), and
 * each common one compared. With one environment on each side (`--env`), those two are compared,
 * whatever their names.
 */
export function diffSurfaces(a: Surface, b: Surface): SurfaceChange[] {
  if (a.environments.length === 1 && b.environments.length === 1)
    return diffEnvironment(a.environments[0]!, b.environments[0]!);
  const out: SurfaceChange[] = [];
  const byB = new Map(b.environments.map((e) => [e.name, e]));
  const byA = new Map(a.environments.map((e) => [e.name, e]));
  for (const ea of a.environments) {
    const eb = byB.get(ea.name);
    if (!eb) {
      out.push(oneSided(ea.name, "removed"));
      continue;
    }
    out.push(...diffEnvironment(ea, eb));
  }
  for (const eb of b.environments) if (!byA.has(eb.name)) out.push(oneSided(eb.name, "added"));
  return out;
}
