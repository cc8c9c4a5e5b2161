"use client";

import Link from "next/link";
import { PageContainer } from "@/components/layout/page-header";
import { buttonClasses } from "@/components/ui/button";
import { ErrorPanel } from "@/components/ui/error-panel";

export default function ServerError({ error, reset }: { error: Error; reset: () => void }) {
  return (
    <PageContainer className="max-w-2xl py-12">
      <ErrorPanel error={error} onRetry={reset} />
      <Link href="/" className={buttonClasses("secondary", "sm", "mt-4")}>
        Back to servers
      </Link>
    </PageContainer>
  );
}
