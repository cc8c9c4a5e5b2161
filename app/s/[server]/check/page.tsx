import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ConformanceCheck } from "@/components/conformance/conformance-check";
import { PageContainer, PageHeader, serverCrumbs } from "@/components/layout/page-header";
import { ServerSummary } from "@/components/servers/server-summary";
import { decodeParam, serverExists } from "@/lib/ui-server/page-lookup";

type Params = { params: Promise<{ server: string }> };

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { server } = await params;
  return { title: `Check ${decodeParam(server)}` };
}

export default async function CheckServerPage({ params }: Params) {
  const server = decodeParam((await params).server);
  if (!(await serverExists(server))) notFound();
  return (
    <PageContainer>
      <PageHeader
        crumbs={serverCrumbs(server, undefined, "Check")}
        title={
          <>
            Conformance check of <span className="font-mono">{server}</span>
          </>
        }
        description={<ServerSummary server={server} />}
      />
      <ConformanceCheck server={server} />
    </PageContainer>
  );
}
