"use client";

// Home: every known server with its health and environments, and the "Add server" form.
import { PageContainer, PageHeader } from "@/components/layout/page-header";
import { SectionCard } from "@/components/ui/card";
import { ErrorPanel } from "@/components/ui/error-panel";
import { Skeleton } from "@/components/ui/skeleton";
import { useServers } from "@/lib/ui/queries";
import { AddServerForm } from "./add-server-form";
import { ServerCard } from "./server-card";

export function HomeView() {
  const servers = useServers();
  return (
    <PageContainer>
      <PageHeader
        title="Servers"
        description="ORS servers this playground can reach, and their environments. Every request goes through the recording relay."
      />
      <section id="servers" aria-label="Server list" className="scroll-mt-16">
        {servers.isPending ? (
          <div role="status" className="grid gap-3 md:grid-cols-2">
            <span className="sr-only">Loading servers</span>
            {[0, 1].map((i) => (
              <Skeleton key={i} className="h-36 rounded-lg" />
            ))}
          </div>
        ) : servers.isError ? (
          <ErrorPanel
            error={servers.error}
            context={{ what: "Server list" }}
            onRetry={() => servers.refetch()}
          />
        ) : (
          <div className="grid gap-3 md:grid-cols-2">
            {servers.data.map((s) => (
              <ServerCard key={s.name} server={s} />
            ))}
          </div>
        )}
      </section>
      <SectionCard
        title="Add server"
        className="mt-6"
        aside={<span className="text-xs text-zinc-500">e.g. a Python ORS server on localhost:8080</span>}
      >
        <AddServerForm existing={servers.data?.map((s) => s.name) ?? []} />
      </SectionCard>
    </PageContainer>
  );
}
