"use client";

// The app's top bar: name, server picker, main navigation, theme toggle. Its links don't prefetch:
// they are on every page, and prefetching four routes on each load competes with the page's own
// requests on a busy machine (the server is local, so a click-time fetch is quick).
import { Boxes } from "lucide-react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { ThemeToggle } from "@/components/ui/theme-toggle";
import {
  homeHref,
  leaderboardsHref,
  liveHref,
  reviewHref,
  runsHref,
  serverHref,
  trajectoriesHref,
} from "@/lib/routes";
import { cn } from "@/lib/ui/cn";
import { ServerPicker } from "./server-picker";
import { useCurrentServer } from "./use-current-server";

export function TopBar() {
  const pathname = usePathname() ?? "/";
  const { name } = useCurrentServer();
  const nav = [
    {
      href: serverHref(name),
      label: "Environments",
      active: pathname === "/" || pathname.startsWith("/s/"),
    },
    { href: trajectoriesHref(), label: "Trajectories", active: pathname.startsWith("/trajectories") },
    { href: liveHref(), label: "Live", active: pathname.startsWith("/live") },
    { href: runsHref(), label: "Runs", active: pathname.startsWith("/runs") },
    { href: reviewHref(), label: "Review", active: pathname.startsWith("/review") },
    { href: leaderboardsHref(), label: "Leaderboards", active: pathname.startsWith("/leaderboards") },
  ];
  // A share link's player sees the link's page only: nothing here would open for them.
  if (pathname.startsWith("/play/")) return null;
  return (
    <header className="sticky top-0 z-30 border-b border-zinc-200 bg-white/85 backdrop-blur dark:border-zinc-800 dark:bg-zinc-950/85">
      <div className="flex min-h-12 flex-wrap items-center gap-x-3 gap-y-1 px-4 py-2 sm:flex-nowrap sm:py-0">
        <Link
          href={homeHref()}
          prefetch={false}
          className="flex items-center gap-2 rounded text-sm font-semibold tracking-tight"
        >
          <span className="inline-flex size-6 items-center justify-center rounded-md bg-indigo-600 text-white">
            <Boxes aria-hidden="true" className="size-3.5" />
          </span>
          <span className="hidden sm:inline">ORS Playground</span>
        </Link>
        <span aria-hidden="true" className="hidden text-zinc-300 sm:inline dark:text-zinc-700">
          /
        </span>
        <ServerPicker />
        <nav
          aria-label="Main"
          className="order-last flex w-full items-center gap-0.5 sm:order-none sm:ml-2 sm:w-auto"
        >
          {nav.map((n) => (
            <Link
              key={n.label}
              href={n.href}
              prefetch={false}
              aria-current={n.active ? "page" : undefined}
              className={cn(
                "rounded-md px-2 py-1 text-xs font-medium text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900 dark:text-zinc-400 dark:hover:bg-zinc-800 dark:hover:text-zinc-100",
                n.active && "bg-zinc-100 text-zinc-900 dark:bg-zinc-800 dark:text-zinc-100",
              )}
            >
              {n.label}
            </Link>
          ))}
        </nav>
        <div className="ml-auto flex items-center gap-2">
          <ThemeToggle />
        </div>
      </div>
    </header>
  );
}
