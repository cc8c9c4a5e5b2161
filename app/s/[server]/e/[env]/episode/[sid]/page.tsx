import type { Metadata } from "next";
import { EpisodeView } from "@/components/episode/episode-view";
import { type PrerenderedBlocks, prerenderBlocks } from "@/components/episode/prerender";
import { getPlayground } from "@/lib/playground";
import { decodeParam } from "@/lib/ui-server/page-lookup";

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
 * Episodes with more steps than this read their prompt in the browser only: the store reads a
 * whole trajectory (its steps too), and the page reads it again from the browser.
 */
const PRERENDER_MAX_STEPS = 20;

/**
 * The session's recorded prompt, its Markdown rendered here: the page shows it laid out from the
 * first paint (the browser then reads the record and follows its live feed as before).
 */
async function recordedPrompt(server: string, sid: string): Promise<PrerenderedBlocks | null> {
  const { store } = getPlayground();
  try {
    const found = await store.findBySession(server, sid);
    const t = found && found.num_steps <= PRERENDER_MAX_STEPS ? await store.get(found.id) : null;
    return t?.prompt ? prerenderBlocks(t.prompt) : null;
  } catch {
    return null; // the browser reads the record itself
  }
}

export default async function EpisodePage({ params }: Params) {
  const p = await params;
  const server = decodeParam(p.server);
  const sid = decodeParam(p.sid);
  const { host, registry } = getPlayground();
  // The server's idle limit, where the playground knows it: its own host, or a per-server setting.
  const idleLimitMs =
    server === "local"
      ? host.host.options.idleTimeoutMs
      : ((await registry.get(server))?.idleTimeoutMs ?? null);
  return (
    <EpisodeView
      server={server}
      env={decodeParam(p.env)}
      sid={sid}
      idleLimitMs={idleLimitMs}
      keepAliveIdleMs={keepAliveIdleMs()}
      initialPrompt={await recordedPrompt(server, sid)}
    />
  );
}
