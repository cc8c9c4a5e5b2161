"use client";

import { ServerQueryError } from "@/components/ui/server-query-error";
import { Skeleton } from "@/components/ui/skeleton";
import { useTools } from "@/lib/ui/queries";
import { ToolCard } from "./tool-card";

/** Every tool of an environment (GET /{env}/tools), with a jump list when there are many. */
export function ToolsPanel({ server, env }: { server: string; env: string }) {
  const tools = useTools(server, env);
  if (tools.isPending) {
    return (
      <div role="status" className="space-y-3">
        <span className="sr-only">Loading tools</span>
        {[0, 1].map((i) => (
          <Skeleton key={i} className="h-32 rounded-lg" />
        ))}
      </div>
    );
  }
  if (tools.isError) {
    return <ServerQueryError query={tools} server={server} env={env} />;
  }
  if (tools.data.length === 0)
    return <p className="text-sm text-zinc-500">This environment lists no tools.</p>;
  return (
    <div className="grid gap-4 lg:grid-cols-[12rem_1fr]">
      <nav aria-label="Tools" className="hidden lg:block">
        <ul className="sticky top-16 space-y-0.5 text-xs">
          {tools.data.map((t) => (
            <li key={t.name}>
              <a
                href={`#tool-${t.name}`}
                className="block truncate rounded px-2 py-1 font-mono text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900 dark:text-zinc-400 dark:hover:bg-zinc-800 dark:hover:text-zinc-100"
              >
                {t.name}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div className="min-w-0 space-y-3">
        {tools.data.map((t) => (
          <ToolCard key={t.name} tool={t} />
        ))}
      </div>
    </div>
  );
}
