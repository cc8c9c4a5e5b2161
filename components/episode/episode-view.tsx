"use client";
// The episode view (/s/<server>/e/<env>/episode/<sid>): a view of the episode recorded on the
// server, kept current by its live feed, so every tab, a reload and a second browser show the same
// steps; composes the per-resource hooks (feed, tools, tool calls, keep-alive) around one store.
import dynamic from "next/dynamic";
import Link from "next/link";
import { ReloadErrorBanner } from "@/components/environments/reload-error-banner";
import { PageContainer, PageHeader } from "@/components/layout/page-header";
import { CopyButton } from "@/components/ui/copy-button";
import { SkeletonBlock } from "@/components/ui/skeleton";
import { envHref, homeHref, serverHref } from "@/lib/routes";
import { EpisodeStoreProvider, selectEndReason, useEpisodeStore } from "@/lib/ui/episode-store";
import { useEpisodeFeed, useKeepAlive } from "@/lib/ui/use-episode";
import { useToolCall } from "@/lib/ui/use-tool-call";
import { EpisodePanel } from "./episode-panel";
import type { PrerenderedBlocks } from "./prerender";
import { PromptCard } from "./prompt-card";
import { StepsSection } from "./step-list";
import { ToolPanel } from "./tool-panel";

// A model at the controls is an extra: its code loads after the page's own, as its own chunk.
const ModelControlsPanel = dynamic(() => import("./model-controls").then((m) => m.ModelControlsPanel), {
  ssr: false,
});
// So is the protocol log (collapsed until opened).
const ProtocolLogPanel = dynamic(() => import("./protocol-log").then((m) => m.ProtocolLogPanel), {
  ssr: false,
});

function EpisodeScreen({
  keepAliveIdleMs,
  initialPrompt,
}: {
  keepAliveIdleMs: number;
  initialPrompt: PrerenderedBlocks | null;
}) {
  useEpisodeFeed();
  const status = useEpisodeStore((s) => s.status);
  const missing = useEpisodeStore((s) => s.missingReason);
  const running = useEpisodeStore((s) => s.status === "ready" && selectEndReason(s) === null);
  const caller = useToolCall();
  const keepAlive = useKeepAlive(running, { inactivityMs: keepAliveIdleMs });

  if (status === "missing") {
    return (
      <div
        role="alert"
        className="rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100"
      >
        <p className="font-semibold">No recorded episode for this session</p>
        <p className="mt-1 text-sm">{missing}</p>
      </div>
    );
  }
  // Prompt, steps, panel and tools are all views of the one record on the server.
  return (
    <div className="grid gap-5 lg:grid-cols-[minmax(0,1fr)_26rem]">
      <div className="flex min-w-0 flex-col gap-4">
        <PromptCard initial={initialPrompt} />
        <StepsSection caller={caller} />
        {status === "ready" && <ProtocolLogPanel caller={caller} />}
      </div>
      <aside
        className="flex flex-col gap-4 lg:sticky lg:top-16 lg:max-h-[calc(100vh-5rem)] lg:self-start lg:overflow-y-auto"
        aria-label="Episode controls"
      >
        {status === "ready" ? (
          <EpisodePanel keepAlive={keepAlive} />
        ) : (
          <SkeletonBlock label="Opening the episode" lines={4} />
        )}
        {status === "ready" && <ModelControlsPanel caller={caller} />}
        <ToolPanel caller={caller} />
      </aside>
    </div>
  );
}

export function EpisodeView({
  server,
  env,
  sid,
  idleLimitMs,
  keepAliveIdleMs,
  initialPrompt = null,
}: {
  server: string;
  env: string;
  sid: string;
  /** The server's session idle limit when the playground knows it. */
  idleLimitMs: number | null;
  /** Keep-alive stops after this long without anyone using the tab. */
  keepAliveIdleMs: number;
  /** The recorded prompt as the server rendered it (its Markdown laid out), when it had one. */
  initialPrompt?: PrerenderedBlocks | null;
}) {
  return (
    <PageContainer>
      <PageHeader
        crumbs={[
          { href: homeHref(), label: "Servers" },
          { href: serverHref(server), label: server },
          { href: envHref(server, env), label: env },
          { label: "Episode" },
        ]}
        title={
          <span className="flex items-center gap-2">
            Episode{" "}
            <span className="font-mono text-base font-normal text-zinc-500 dark:text-zinc-400">
              {sid.slice(0, 8)}
            </span>
          </span>
        }
        description={
          <span className="inline-flex items-center gap-2">
            <span>
              Session <code className="font-mono text-xs">{sid}</code> on{" "}
              <span className="font-mono">{server}</span> /{" "}
              <Link prefetch={false} className="font-mono hover:underline" href={envHref(server, env)}>
                {env}
              </Link>
            </span>
            <CopyButton text={sid} label="Copy session id" />
          </span>
        }
      />
      <ReloadErrorBanner server={server} env={env} />
      <EpisodeStoreProvider
        key={`${server}/${sid}`}
        server={server}
        env={env}
        sid={sid}
        idleLimitMs={idleLimitMs}
      >
        <EpisodeScreen keepAliveIdleMs={keepAliveIdleMs} initialPrompt={initialPrompt} />
      </EpisodeStoreProvider>
    </PageContainer>
  );
}
