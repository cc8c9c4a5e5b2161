import { HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { Suspense } from "react";
import { EnvironmentView } from "@/components/environments/environment-view";
import { PageContainer } from "@/components/layout/page-header";
import { SkeletonBlock } from "@/components/ui/skeleton";
import { decodeParam, knownEnvironment } from "@/lib/ui-server/page-lookup";
import { prefetchEnvironment } from "@/lib/ui-server/prefetch";

type Params = { params: Promise<{ server: string; env: string }> };

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { server, env } = await params;
  return { title: `${decodeParam(env)} · ${decodeParam(server)}` };
}

/**
 * The view with its tools, splits and task counts fetched here (bounded in time), so the HTML
 * carries them; streamed behind the skeleton, so a slow server holds up only this part.
 */
async function PrefetchedEnvironmentView({ server, env }: { server: string; env: string }) {
  const state = await prefetchEnvironment(server, env);
  return (
    <HydrationBoundary state={state}>
      <EnvironmentView key={`${server}/${env}`} server={server} env={env} />
    </HydrationBoundary>
  );
}

export default async function EnvironmentPage({ params }: Params) {
  // Unknown server, or an environment the built-in host doesn't have: a real 404.
  const { server, env } = await knownEnvironment(params);
  return (
    <PageContainer>
      <Suspense fallback={<SkeletonBlock label="Loading environment" lines={8} />}>
        <PrefetchedEnvironmentView server={server} env={env} />
      </Suspense>
    </PageContainer>
  );
}
