import Link from "next/link";
import { PageContainer } from "@/components/layout/page-header";
import { buttonClasses } from "@/components/ui/button";
import { homeHref } from "@/lib/routes";

export default function NotFound() {
  return (
    <PageContainer className="flex flex-col items-center py-24 text-center">
      <p className="font-mono text-xs text-zinc-500">404</p>
      <h1 className="mt-1 text-xl font-semibold">Not found</h1>
      <p className="mt-2 max-w-md text-sm text-zinc-500">
        This server, environment or page does not exist. Check the link, or pick a server and environment from
        the list.
      </p>
      <Link href={homeHref()} className={buttonClasses("primary", "md", "mt-5")}>
        Go to servers
      </Link>
    </PageContainer>
  );
}
