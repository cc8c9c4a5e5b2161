import Link from "next/link";
import { PageContainer } from "@/components/layout/page-header";
import { buttonClasses } from "@/components/ui/button";
import { runsHref } from "@/lib/routes";

export default function RunNotFound() {
  return (
    <PageContainer className="flex flex-col items-center py-24 text-center">
      <p className="font-mono text-xs text-zinc-500">404</p>
      <h1 className="mt-1 text-xl font-semibold">Run not found</h1>
      <p className="mt-2 max-w-md text-sm text-zinc-500">
        No run has this id: it was deleted, or the link is wrong.
      </p>
      <Link href={runsHref()} className={buttonClasses("primary", "md", "mt-5")}>
        Go to runs
      </Link>
    </PageContainer>
  );
}
