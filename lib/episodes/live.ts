// The live feed of recorded episodes: an in-process bus the recorder publishes to and the SSE
// route `/api/trajectories/<id>/events` (and the live list) subscribe to. A globalThis singleton,
// so route modules bundled separately share it.
import "server-only";
import type { EndReason, StepEvent, TrajectoryStep, TrajectorySummary } from "@/lib/episodes/schema";
import type { Block } from "@/lib/ors/protocol";

export type LiveEvent =
  | { type: "started"; id: string; summary: TrajectorySummary }
  | { type: "prompt"; id: string; blocks: Block[] }
  | { type: "step"; id: string; step: TrajectoryStep }
  | { type: "frame"; id: string; index: number; event: StepEvent }
  | { type: "ended"; id: string; end_reason: EndReason; error: string | null; ended_at: number };

type Listener = (e: LiveEvent) => void;

interface Bus {
  all: Set<Listener>;
  byId: Map<string, Set<Listener>>;
}

const KEY = Symbol.for("ors-playground.trajectory-live");

function bus(): Bus {
  const g = globalThis as typeof globalThis & { [KEY]?: Bus };
  if (!g[KEY]) g[KEY] = { all: new Set(), byId: new Map() };
  return g[KEY];
}

/** Listens to one trajectory (`id`) or to every trajectory (`id` = null). Returns unsubscribe. */
export function subscribeLive(id: string | null, listener: Listener): () => void {
  const b = bus();
  const entry: Listener = (e) => listener(e);
  if (id == null) {
    b.all.add(entry);
    return () => b.all.delete(entry);
  }
  let set = b.byId.get(id);
  if (!set) {
    set = new Set();
    b.byId.set(id, set);
  }
  set.add(entry);
  return () => {
    const s = b.byId.get(id);
    s?.delete(entry);
    if (s && s.size === 0) b.byId.delete(id);
  };
}

export function publishLive(e: LiveEvent): void {
  const b = bus();
  for (const l of [...(b.byId.get(e.id) ?? []), ...b.all]) {
    try {
      l(e);
    } catch {
      // A broken subscriber (a closed stream) must not stop the others.
    }
  }
}
