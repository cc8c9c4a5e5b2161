import { HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { EpisodeView } from "@/components/episode/episode-view";
import { type PrerenderedBlocks, prerenderBlocks } from "@/components/episode/prerender";
import { getPlayground } from "@/lib/playground";
import type { Trajectory } from "@/lib/trajectory/schema";
import { decodeParam } from "@/lib/ui-server/page-lookup";
import { prefetchSessionTools } from "@/lib/ui-server/prefetch";

type Params = { params: Promise<{ server: string; env: string; sid: string }> };

export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { env, sid } = await params;
  return { title: `${decodeParam(env)} episode ${decodeParam(sid).slice(0, 8)}` };
}

/** Keep-alive stops after this long without anyone using the tab (PLAYGROUND_KEEPALIVE_IDLE_MS). */
function keepAliveIdleMs(): number {
  return getPlayground().config.keepAliveIdleMs;
}

/**
 * Episodes with more steps than this are read in the browser only: the store reads a whole
 * trajectory (its steps too), and the page would carry it.
 */
const PRERENDER_MAX_STEPS = 20;
/** A record larger than this (as JSON) is read in the browser, off its main thread. */
const HANDOVER_MAX_CHARS = 256 * 1024;
/** How long the page waits for the session's tools (then the browser asks for them). */
const TOOLS_PREFETCH_MS = 300;

/** Whether a record is small enough to travel with the page (measured step by step, stopping early). */
function fitsHandover(t: Trajectory): boolean {
  let chars = JSON.stringify({ ...t, steps: [] }).length;
  for (const step of t.steps) {
    chars += JSON.stringify(step).length;
    if (chars > HANDOVER_MAX_CHARS) return false;
  }
  return chars <= HANDOVER_MAX_CHARS;
}

/**
 * What the page knows of the session's record before the browser asks: the whole record when it is
 * small, and the recorded prompt (read alone, whatever the number of steps), its Markdown rendered
 * here so that it is laid out from the first paint.
 */
async function recorded(
  server: string,
  sid: string,
): Promise<{ record: Trajectory | null; prompt: PrerenderedBlocks | null }> {
  const { store } = getPlayground();
  try {
    const found = await store.findBySession(server, sid);
    if (!found) return { record: null, prompt: null };
    const record = found.num_steps <= PRERENDER_MAX_STEPS ? await store.get(found.id) : null;
    const prompt = record ? record.prompt : await store.promptOf(found.id);
    return { record, prompt: prompt ? prerenderBlocks(prompt) : null };
  } catch {
    return { record: null, prompt: null }; // the browser reads the record itself
  }
}

export default async function EpisodePage({ params }: Params) {
  const p = await params;
  const server = decodeParam(p.server);
  const sid = decodeParam(p.sid);
  const env = decodeParam(p.env);
  // The server's idle limit, where the playground knows it: its own host, or a per-server setting.
  const idleLimitMs = await getPlayground().idleLimitOf(server);
  const { record, prompt } = await recorded(server, sid);
  // What the tool form needs, handed over with the page (no round trip after hydration): the record
  // and, while its session is open, the session's tools.
  const open = record !== null && (record.end_reason === null || record.end_reason === "finished");
  const tools = open ? await prefetchSessionTools(server, env, sid, { timeoutMs: TOOLS_PREFETCH_MS }) : null;
  const handover = record && fitsHandover(record) ? record : null;
  return (
    <HydrationBoundary state={tools}>
      <EpisodeView
        server={server}
        env={env}
        sid={sid}
        idleLimitMs={idleLimitMs}
        keepAliveIdleMs={keepAliveIdleMs()}
        initialPrompt={prompt}
        initialRecord={handover}
      />
    </HydrationBoundary>
  );
}
