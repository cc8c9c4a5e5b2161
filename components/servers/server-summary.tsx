"use client";

// One line about a server for its page header: where it is, where it comes from, its health.
import { useServerInfo } from "@/lib/ui/queries";
import { HealthDot, healthLabel } from "./health-dot";

export function ServerSummary({ server }: { server: string }) {
  const info = useServerInfo(server);
  if (!info) return <span className="text-zinc-400">…</span>;
  return (
    <span className="inline-flex flex-wrap items-center gap-x-2">
      <HealthDot health={info.health} />
      <span className="font-mono text-xs">
        {info.source === "builtin" ? "built-in host, in process" : info.url}
      </span>
      <span className="text-xs">· {healthLabel(info.health)}</span>
    </span>
  );
}
