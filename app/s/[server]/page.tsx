import { ShieldCheck } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { EnvironmentList } from "@/components/environments/environment-list";
import { PageContainer, PageHeader, serverCrumbs } from "@/components/layout/page-header";
import { ServerProcess } from "@/components/servers/server-process";
import { ServerSummary } from "@/components/servers/server-summary";
import { buttonClasses } from "@/components/ui/button";
import { getPlayground } from "@/lib/playground";
import { checkHref } from "@/lib/routes";
import { decodeParam, serverExists } from "@/lib/ui-server/page-lookup";

type Params = { params: Promise<{ server: string }> };

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { server } = await params;
  return { title: `${decodeParam(server)} environments` };
}

export default async function ServerPage({ params }: Params) {
  const server = decodeParam((await params).server);
  if (!(await serverExists(server))) notFound();
  return (
    <PageContainer>
      <PageHeader
        crumbs={serverCrumbs(server)}
        title={<span className="font-mono">{server}</span>}
        description={<ServerSummary server={server} />}
        actions={
          <Link href={checkHref(server)} prefetch={false} className={buttonClasses()}>
            <ShieldCheck aria-hidden="true" /> Check this server
          </Link>
        }
      />
      {/* A server the playground runs itself (start --spawn): its process and log. */}
      {getPlayground().spawned.get(server) && <ServerProcess server={server} />}
      <EnvironmentList server={server} />
    </PageContainer>
  );
}
