// Reads both sides of a diff and compares them (docs/ci.md "What diff compares"): A first, then B
// with A's sample of prompts, so the same tasks' prompts are compared. Isomorphic: the CLI reads
// servers at their URLs, the app's compare view through the relay's address policy.
import type { OrsClient } from "@/lib/ors/client";
import {
  DEFAULT_SURFACE_PROMPTS,
  DEFAULT_SURFACE_SEED,
  DEFAULT_SURFACE_TASKS,
  promptKey,
  readSurface,
  type Surface,
} from "./surface";
import { diffSurfaces } from "./surface-diff";
import type { SurfaceChange } from "./types";

export interface SurfaceDiffSide {
  client: OrsClient;
  /** Only this environment (default: every one). */
  env?: string;
}

export interface SurfaceDiffOptions {
  tasks?: number;
  prompts?: number;
  seed?: number;
  signal?: AbortSignal;
}

export interface SurfaceDiffResult {
  a: Surface;
  b: Surface;
  changes: SurfaceChange[];
  unread: { side: "a" | "b"; env: string; error: string }[];
}

/** Reads A's and B's surfaces and compares them. Throws when either cannot list its environments. */
export async function runSurfaceDiff(
  a: SurfaceDiffSide,
  b: SurfaceDiffSide,
  o: SurfaceDiffOptions = {},
): Promise<SurfaceDiffResult> {
  const common = {
    tasks: o.tasks ?? DEFAULT_SURFACE_TASKS,
    prompts: o.prompts ?? DEFAULT_SURFACE_PROMPTS,
    seed: o.seed ?? DEFAULT_SURFACE_SEED,
    signal: o.signal,
  };
  const sa = await readSurface(a.client, { ...common, env: a.env });
  // B's prompts: the tasks read on A (by split), under B's name for the environment.
  const promptIndexes = new Map<string, number[]>();
  for (const e of sa.environments) {
    const name = b.env ?? e.name;
    for (const p of e.prompts) {
      const key = promptKey(name, p.split);
      promptIndexes.set(key, [...(promptIndexes.get(key) ?? []), p.index]);
    }
    for (const s of e.splits)
      if (!promptIndexes.has(promptKey(name, s.name))) promptIndexes.set(promptKey(name, s.name), []);
  }
  const sb = await readSurface(b.client, { ...common, env: b.env, promptIndexes });
  const unread = [
    ...sa.environments.flatMap((e) => e.errors.map((error) => ({ side: "a" as const, env: e.name, error }))),
    ...sb.environments.flatMap((e) => e.errors.map((error) => ({ side: "b" as const, env: e.name, error }))),
  ];
  return { a: sa, b: sb, changes: diffSurfaces(sa, sb), unread };
}
