import { ChevronRight } from "lucide-react";
import Link from "next/link";
import type { ReactNode } from "react";
import { envHref, homeHref, serverHref } from "@/lib/routes";
import { cn } from "@/lib/ui/cn";

export type Crumb = { href?: string; label: ReactNode };

/**
 * The crumbs down to a page under a server (and an environment): Servers › server › env › `here`.
 * Without `here`, the last one named is the page itself.
 */
export function serverCrumbs(server: string, env?: string, here?: string): Crumb[] {
  const path: Crumb[] = [
    { href: homeHref(), label: "Servers" },
    { href: serverHref(server), label: server },
  ];
  if (env !== undefined) path.push({ href: envHref(server, env), label: env });
  if (here !== undefined) return [...path, { label: here }];
  return [...path.slice(0, -1), { label: path.at(-1)!.label }];
}

/** A page's breadcrumbs, title, one-line description and actions. */
export function PageHeader({
  crumbs,
  title,
  description,
  actions,
  className,
}: {
  crumbs?: Crumb[];
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  className?: string;
}) {
  return (
    <div className={cn("mb-5 space-y-1", className)}>
      {crumbs && crumbs.length > 0 && (
        <nav aria-label="Breadcrumb">
          <ol className="flex flex-wrap items-center gap-1 text-xs text-zinc-500 dark:text-zinc-400">
            {crumbs.map((c, i) => (
              <li key={i} className="flex items-center gap-1">
                {i > 0 && <ChevronRight aria-hidden="true" className="size-3 text-zinc-400" />}
                {c.href ? (
                  <Link
                    href={c.href}
                    prefetch={false}
                    className="rounded hover:text-zinc-900 hover:underline dark:hover:text-zinc-100"
                  >
                    {c.label}
                  </Link>
                ) : (
                  <span aria-current="page">{c.label}</span>
                )}
              </li>
            ))}
          </ol>
        </nav>
      )}
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h1 className="truncate text-xl font-semibold tracking-tight text-zinc-900 dark:text-zinc-50">
            {title}
          </h1>
          {description && (
            <div className="mt-0.5 text-sm text-zinc-500 dark:text-zinc-400">{description}</div>
          )}
        </div>
        {actions && <div className="flex shrink-0 items-center gap-2">{actions}</div>}
      </div>
    </div>
  );
}

export function PageContainer({ children, className }: { children: ReactNode; className?: string }) {
  return <main className={cn("mx-auto w-full max-w-7xl px-4 py-6 sm:px-6", className)}>{children}</main>;
}
