import type { Metadata } from "next";
import { EpisodeView } from "@/components/episode/episode-view";
import { type PrerenderedBlocks, prerenderBlocks } from "@/components/episode/prerender";
import { processEnv, settingOrDefault } from "@/lib/config";
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
  return settingOrDefault(processEnv(), "PLAYGROUND_KEEPALIVE_IDLE_MS");
}

/**
 * The session's recorded prompt, its Markdown rendered here: the page shows it laid out from the
 * first paint (the browser then reads the record and follows its live feed as before). The prompt is
 * read alone, whatever the number of steps.
 */
async function recordedPrompt(server: string, sid: string): Promise<PrerenderedBlocks | null> {
  const { store } = getPlayground();
  try {
    const found = await store.findBySession(server, sid);
    const prompt = found ? await store.promptOf(found.id) : null;
    return prompt ? prerenderBlocks(prompt) : null;
  } catch {
    return null; // the browser reads the record itself
  }
}

export default async function EpisodePage({ params }: Params) {
  const p = await params;
  const server = decodeParam(p.server);
  const sid = decodeParam(p.sid);
  // The server's idle limit, where the playground knows it: its own host, or a per-server setting.
  const idleLimitMs = await getPlayground().idleLimitOf(server);
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
