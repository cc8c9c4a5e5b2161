"use client";

// A server's environments: one dense row each, with its tools and splits (ORS has no description
// endpoint, so this is what a server can tell about an environment).
import { ChevronRight } from "lucide-react";
import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { ServerQueryError } from "@/components/ui/server-query-error";
import { Skeleton } from "@/components/ui/skeleton";
import { envHref } from "@/lib/routes";
import { useEnvironments, useSplits, useTools } from "@/lib/ui/queries";

const splitTone = { train: "indigo", validation: "amber", test: "green" } as const;

function EnvRow({ server, env }: { server: string; env: string }) {
  const tools = useTools(server, env);
  const splits = useSplits(server, env);
  return (
    <li className="group relative flex items-center gap-4 px-3 py-2.5 hover:bg-zinc-50 dark:hover:bg-zinc-900">
      <div className="w-48 shrink-0">
        <Link
          href={envHref(server, env)}
          className="font-mono text-sm font-semibold text-zinc-900 after:absolute after:inset-0 hover:underline dark:text-zinc-100"
        >
          {env}
        </Link>
      </div>
      <div className="min-w-0 flex-1 text-xs text-zinc-600 dark:text-zinc-400">
        {tools.isPending ? (
          <Skeleton className="h-4 w-64" />
        ) : tools.isError ? (
          <span className="text-red-600 dark:text-red-400">tools: {tools.error.message}</span>
        ) : (
          <span className="block truncate" title={tools.data.map((t) => t.name).join(", ")}>
            <span className="font-medium text-zinc-800 dark:text-zinc-200">
              {tools.data.length} tool{tools.data.length === 1 ? "" : "s"}
            </span>
            {tools.data.length > 0 && (
              <span className="font-mono"> · {tools.data.map((t) => t.name).join(", ")}</span>
            )}
          </span>
        )}
      </div>
      <div className="flex w-64 shrink-0 flex-wrap justify-end gap-1">
        {splits.isPending ? (
          <Skeleton className="h-4 w-24" />
        ) : splits.isError ? (
          <span className="text-xs text-red-600 dark:text-red-400">splits unavailable</span>
        ) : splits.data.length === 0 ? (
          <span className="text-xs text-zinc-500">no splits</span>
        ) : (
          splits.data.map((s) => (
            <Badge
              key={s.name}
              tone={splitTone[s.type]}
              title={`${s.name} (${s.type})`}
              className="font-mono"
            >
              {s.name}
            </Badge>
          ))
        )}
      </div>
      <ChevronRight
        aria-hidden="true"
        className="size-4 shrink-0 text-zinc-300 group-hover:text-zinc-500 dark:text-zinc-700"
      />
    </li>
  );
}

export function EnvironmentList({ server }: { server: string }) {
  const envs = useEnvironments(server);
  if (envs.isPending) {
    return (
      <Card>
        <div role="status" className="divide-y divide-zinc-100 dark:divide-zinc-800">
          <span className="sr-only">Loading environments</span>
          {[0, 1, 2, 3, 4].map((i) => (
            <div key={i} className="flex gap-4 px-3 py-3">
              <Skeleton className="h-4 w-32" />
              <Skeleton className="h-4 flex-1" />
              <Skeleton className="h-4 w-20" />
            </div>
          ))}
        </div>
      </Card>
    );
  }
  if (envs.isError) {
    return <ServerQueryError query={envs} server={server} />;
  }
  if (envs.data.length === 0) {
    return <p className="text-sm text-zinc-500">This server serves no environments.</p>;
  }
  return (
    <Card>
      <div className="flex items-center gap-4 border-b border-zinc-200 px-3 py-1.5 text-[11px] font-medium uppercase tracking-wide text-zinc-500 dark:border-zinc-800">
        <span className="w-48 shrink-0">Environment</span>
        <span className="flex-1">Tools</span>
        <span className="w-64 shrink-0 text-right">Splits</span>
        <span className="w-4 shrink-0" />
      </div>
      <ul
        aria-label={`Environments of ${server}`}
        className="divide-y divide-zinc-100 dark:divide-zinc-800/70"
      >
        {envs.data.map((env) => (
          <EnvRow key={env} server={server} env={env} />
        ))}
      </ul>
    </Card>
  );
}
