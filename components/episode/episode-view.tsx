"use client";
// The episode view (/s/<server>/e/<env>/episode/<sid>): composes the per-resource hooks — reopen
// (recorded trajectory or this tab's copy), prompt, tools, tool calls, keep-alive — around one
// episode store. Reloading reopens the same live episode and picks up an in-flight call.
import Link from "next/link";
import { Suspense } from "react";
import { PageContainer, PageHeader } from "@/components/layout/page-header";
import { Badge } from "@/components/ui/badge";
import { CopyButton } from "@/components/ui/copy-button";
import { SkeletonBlock } from "@/components/ui/skeleton";
import { EpisodeStoreProvider, selectEnd, useEpisodeStore } from "@/lib/ui/episode-store";
import { useEpisodePersistence, useKeepAlive } from "@/lib/ui/use-episode";
import { useResumeInFlight, useToolCall } from "@/lib/ui/use-tool-call";
import { EpisodePanel } from "./episode-panel";
import { PromptCard } from "./prompt-card";
import { StepList } from "./step-list";
import { ToolPanel } from "./tool-panel";

function EpisodeScreen() {
  const ready = useEpisodePersistence();
  const end = useEpisodeStore(selectEnd);
  const caller = useToolCall();
  useResumeInFlight(ready, caller);
  useKeepAlive(ready && end === null);
  const source = useEpisodeStore((s) => s.source);

  // The prompt, the session's tools and the form's code are requested at once, in parallel with
  // reopening the episode: only the steps, the panel and the call itself wait for the reopen.
  return (
    <div className="grid gap-5 lg:grid-cols-[minmax(0,1fr)_26rem]">
      <div className="flex min-w-0 flex-col gap-4">
        <PromptCard ready={ready} />
        <section aria-labelledby="steps-heading" className="flex flex-col gap-2">
          <div className="flex items-center gap-2">
            <h2 id="steps-heading" className="text-sm font-semibold">
              Steps
            </h2>
            {source === "trajectory" && <Badge tone="sky">reopened from the recorded trajectory</Badge>}
            {source === "session-storage" && <Badge>reopened from this tab</Badge>}
          </div>
          {ready ? (
            <Suspense>
              <StepList onAbandon={caller.abandon} />
            </Suspense>
          ) : (
            <SkeletonBlock label="Opening the episode" lines={2} />
          )}
        </section>
      </div>
      <aside
        className="flex flex-col gap-4 lg:sticky lg:top-16 lg:max-h-[calc(100vh-5rem)] lg:self-start lg:overflow-y-auto"
        aria-label="Episode controls"
      >
        {ready ? <EpisodePanel /> : <SkeletonBlock label="Opening the episode" lines={4} />}
        <ToolPanel caller={caller} ready={ready} />
      </aside>
    </div>
  );
}

export function EpisodeView({ server, env, sid }: { server: string; env: string; sid: string }) {
  return (
    <PageContainer>
      <PageHeader
        crumbs={[
          { href: "/", label: "Servers" },
          { href: `/s/${encodeURIComponent(server)}`, label: server },
          { href: `/s/${encodeURIComponent(server)}/e/${encodeURIComponent(env)}`, label: env },
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
              <Link
                prefetch={false}
                className="font-mono hover:underline"
                href={`/s/${encodeURIComponent(server)}/e/${encodeURIComponent(env)}`}
              >
                {env}
              </Link>
            </span>
            <CopyButton text={sid} label="Copy session id" />
          </span>
        }
      />
      <EpisodeStoreProvider key={`${server}/${sid}`} server={server} env={env} sid={sid}>
        <EpisodeScreen />
      </EpisodeStoreProvider>
    </PageContainer>
  );
}
