"use client";

import Link from "next/link";
import { PageContainer } from "@/components/layout/page-header";
import { buttonClasses } from "@/components/ui/button";
import { ErrorPanel } from "@/components/ui/error-panel";
import { homeHref } from "@/lib/routes";

export default function RootError({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return (
    <PageContainer className="max-w-2xl py-16">
      <h1 className="mb-3 text-lg font-semibold">This page failed to render</h1>
      <ErrorPanel error={error} onRetry={reset}>
        {error.digest && <p className="font-mono text-[11px] opacity-70">digest {error.digest}</p>}
      </ErrorPanel>
      <Link href={homeHref()} className={buttonClasses("secondary", "sm", "mt-4")}>
        Back to servers
      </Link>
    </PageContainer>
  );
}
