import { cn } from "@/lib/ui/cn";
import type { ServerHealth } from "@/lib/ui/servers-api";

export function healthLabel(health: ServerHealth | undefined): string {
  if (!health) return "health unknown";
  if (health.ok)
    return `healthy${health.latencyMs !== undefined ? `, ${Math.round(health.latencyMs)} ms` : ""}`;
  return `down${health.detail ? `: ${health.detail}` : health.status ? ` (${health.status})` : ""}`;
}

/** A small colored dot for a server's health, with a text alternative. */
export function HealthDot({ health, className }: { health: ServerHealth | undefined; className?: string }) {
  const label = healthLabel(health);
  return (
    <span
      role="img"
      aria-label={label}
      title={label}
      className={cn(
        "inline-block size-2 shrink-0 rounded-full",
        !health
          ? "bg-zinc-300 dark:bg-zinc-600"
          : health.ok
            ? "bg-emerald-500 shadow-[0_0_0_3px] shadow-emerald-500/15"
            : "bg-red-500 shadow-[0_0_0_3px] shadow-red-500/15",
        className,
      )}
    />
  );
}
