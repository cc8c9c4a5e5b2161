"use client";

// The top bar's server picker: the current server with its health (on a trajectory's page, the
// server it was recorded on), and a menu of every known server (built-in, configured, user-added)
// linking to its environment list.
import { Check, ChevronsUpDown, Settings2 } from "lucide-react";
import Link from "next/link";
import { useEffect, useId, useRef, useState } from "react";
import { HealthDot } from "@/components/servers/health-dot";
import { serverHref, serversHref } from "@/lib/routes";
import { cn } from "@/lib/ui/cn";
import { useServers } from "@/lib/ui/queries";
import { useCurrentServer } from "./use-current-server";

export function ServerPicker() {
  const { name, pending } = useCurrentServer();
  const servers = useServers();
  const [open, setOpen] = useState(false);
  const rootRef = useRef<HTMLDivElement>(null);
  const menuId = useId();
  const current = servers.data?.find((s) => s.name === name);

  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (!rootRef.current?.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        setOpen(false);
        rootRef.current?.querySelector<HTMLButtonElement>("button")?.focus();
      }
    };
    document.addEventListener("mousedown", onDown);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("mousedown", onDown);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);

  return (
    <div ref={rootRef} className="relative">
      <button
        type="button"
        aria-haspopup="true"
        aria-expanded={open}
        aria-controls={menuId}
        aria-label={pending ? "Server: loading. Switch server" : `Server: ${name}. Switch server`}
        aria-busy={pending || undefined}
        onClick={() => setOpen((o) => !o)}
        className="inline-flex h-7 items-center gap-2 rounded-md border border-zinc-200 bg-white px-2 text-xs font-medium text-zinc-800 hover:bg-zinc-50 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-200 dark:hover:bg-zinc-800"
      >
        <HealthDot health={pending ? undefined : current?.health} />
        <span className={cn("max-w-32 truncate font-mono", pending && "invisible")}>{name}</span>
        <ChevronsUpDown aria-hidden="true" className="size-3.5 text-zinc-400" />
      </button>
      {open && (
        <div
          id={menuId}
          className="absolute left-0 top-9 z-40 w-80 overflow-hidden rounded-lg border border-zinc-200 bg-white shadow-lg dark:border-zinc-800 dark:bg-zinc-900"
        >
          <p className="border-b border-zinc-100 px-3 py-1.5 text-[11px] font-medium uppercase tracking-wide text-zinc-500 dark:border-zinc-800">
            Servers
          </p>
          {servers.isPending && <p className="px-3 py-2 text-xs text-zinc-500">Loading servers…</p>}
          {servers.isError && (
            <p className="px-3 py-2 text-xs text-red-600 dark:text-red-400">
              Could not list servers: {servers.error.message}
            </p>
          )}
          <ul className="max-h-80 overflow-auto py-1">
            {servers.data?.map((s) => (
              <li key={s.name}>
                <Link
                  href={serverHref(s.name)}
                  onClick={() => setOpen(false)}
                  aria-current={s.name === name ? "true" : undefined}
                  className={cn(
                    "flex items-center gap-2 px-3 py-1.5 text-xs hover:bg-zinc-50 dark:hover:bg-zinc-800",
                    s.name === name && "bg-zinc-50 dark:bg-zinc-800/60",
                  )}
                >
                  <HealthDot health={s.health} />
                  <span className="font-mono font-medium text-zinc-900 dark:text-zinc-100">{s.name}</span>
                  <span className="min-w-0 flex-1 truncate text-zinc-500">
                    {s.source === "builtin" ? "built-in host" : s.url}
                  </span>
                  {s.name === name && <Check aria-hidden="true" className="size-3.5 text-indigo-500" />}
                </Link>
              </li>
            ))}
          </ul>
          <Link
            href={serversHref()}
            onClick={() => setOpen(false)}
            className="flex items-center gap-2 border-t border-zinc-100 px-3 py-2 text-xs text-zinc-600 hover:bg-zinc-50 dark:border-zinc-800 dark:text-zinc-400 dark:hover:bg-zinc-800"
          >
            <Settings2 aria-hidden="true" className="size-3.5" />
            Manage servers…
          </Link>
        </div>
      )}
    </div>
  );
}
