"use client";

// One server on the home page: health, URL, where it comes from, and its environments at a glance.
import { ArrowRight, Trash2 } from "lucide-react";
import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { ErrorPanel } from "@/components/ui/error-panel";
import { Skeleton } from "@/components/ui/skeleton";
import { envHref, serverHref } from "@/lib/routes";
import { useEnvironments, useRemoveServer } from "@/lib/ui/queries";
import type { ServerInfo } from "@/lib/ui/servers-api";
import { HealthDot, healthLabel } from "./health-dot";

const sourceLabel: Record<ServerInfo["source"], string> = {
  builtin: "built-in",
  env: "configured",
  config: "servers.json",
  user: "added by you",
  spawned: "started here",
};

export function ServerCard({ server }: { server: ServerInfo }) {
  const envs = useEnvironments(server.name);
  const remove = useRemoveServer();
  return (
    <Card className="flex flex-col">
      <div className="flex items-start gap-2 border-b border-zinc-200 px-3 py-2.5 dark:border-zinc-800">
        <HealthDot health={server.health} className="mt-1.5" />
        <div className="min-w-0 flex-1">
          <div className="flex items-center gap-2">
            <h3 className="font-mono text-sm font-semibold">
              <Link href={serverHref(server.name)} className="rounded hover:underline">
                {server.name}
              </Link>
            </h3>
            <Badge
              tone={server.source === "builtin" ? "indigo" : server.source === "user" ? "sky" : "neutral"}
            >
              {sourceLabel[server.source]}
            </Badge>
          </div>
          <p className="truncate font-mono text-xs text-zinc-500" title={server.url}>
            {server.source === "builtin" ? "in process · /api/ors" : server.url}
          </p>
        </div>
        <span className="shrink-0 text-[11px] tabular-nums text-zinc-500">{healthLabel(server.health)}</span>
        {server.source === "user" && (
          <Button
            size="xs"
            variant="ghost"
            aria-label={`Remove server ${server.name}`}
            title="Remove server"
            disabled={remove.isPending}
            onClick={() => {
              if (window.confirm(`Remove server "${server.name}"?`)) remove.mutate(server.name);
            }}
          >
            <Trash2 aria-hidden="true" />
          </Button>
        )}
      </div>
      <div className="flex-1 p-3">
        {remove.isError && <ErrorPanel compact error={remove.error} className="mb-2" />}
        {envs.isPending ? (
          <div role="status" className="flex flex-wrap gap-1.5">
            <span className="sr-only">Loading environments of {server.name}</span>
            {[0, 1, 2, 3].map((i) => (
              <Skeleton key={i} className="h-6 w-20" />
            ))}
          </div>
        ) : envs.isError ? (
          <ErrorPanel
            compact
            error={envs.error}
            context={{ server: server.name, serverUrl: server.url }}
            onRetry={() => envs.refetch()}
          />
        ) : envs.data.length === 0 ? (
          <p className="text-xs text-zinc-500">This server has no environments.</p>
        ) : (
          <ul aria-label={`Environments of ${server.name}`} className="flex flex-wrap gap-1.5">
            {envs.data.map((env) => (
              <li key={env}>
                <Link
                  href={envHref(server.name, env)}
                  className="inline-flex h-6 items-center rounded-md border border-zinc-200 bg-zinc-50 px-2 font-mono text-xs text-zinc-700 hover:border-indigo-300 hover:bg-indigo-50 hover:text-indigo-700 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-300 dark:hover:border-indigo-800 dark:hover:bg-indigo-950 dark:hover:text-indigo-300"
                >
                  {env}
                </Link>
              </li>
            ))}
          </ul>
        )}
      </div>
      <div className="border-t border-zinc-100 px-3 py-1.5 dark:border-zinc-800/70">
        <Link
          href={serverHref(server.name)}
          className="inline-flex items-center gap-1 rounded text-xs font-medium text-indigo-600 hover:underline dark:text-indigo-400"
        >
          Open {server.name}
          {envs.data ? ` · ${envs.data.length} environment${envs.data.length === 1 ? "" : "s"}` : ""}
          <ArrowRight aria-hidden="true" className="size-3" />
        </Link>
      </div>
    </Card>
  );
}
