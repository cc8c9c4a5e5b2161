import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { Suspense } from "react";
import { EnvironmentCompare } from "@/components/diff/environment-compare";
import { PageContainer, PageHeader } from "@/components/layout/page-header";
import { envHref, homeHref, serverHref } from "@/lib/routes";
import { decodeParam, envExists } from "@/lib/ui-server/page-lookup";

type Params = { params: Promise<{ server: string; env: string }> };

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { server, env } = await params;
  return { title: `Compare ${decodeParam(env)} · ${decodeParam(server)}` };
}

/** An environment compared with another server's: the surface diff (docs/ci.md "In the playground"). */
export default async function CompareEnvironmentPage({ params }: Params) {
  const p = await params;
  const server = decodeParam(p.server);
  const env = decodeParam(p.env);
  if ((await envExists(server, env)) === false) notFound();
  return (
    <PageContainer>
      <PageHeader
        crumbs={[
          { href: homeHref(), label: "Servers" },
          { href: serverHref(server), label: server },
          { href: envHref(server, env), label: env },
          { label: "Compare" },
        ]}
        title={
          <>
            Compare <span className="font-mono">{env}</span> with…
          </>
        }
        description={`What changed from ${server}'s ${env} to another server's environment: breaking, compatible and cosmetic changes.`}
      />
      <Suspense>
        <EnvironmentCompare server={server} env={env} />
      </Suspense>
    </PageContainer>
  );
}
