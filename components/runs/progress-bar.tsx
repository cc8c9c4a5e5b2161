// A thin progress bar with the progressbar role (0..1 shown as a percentage).
import { cn } from "@/lib/ui/cn";

export function ProgressBar({
  value,
  label,
  className,
  tone = "indigo",
}: {
  /** 0..1 */
  value: number;
  label: string;
  className?: string;
  tone?: "indigo" | "green" | "amber";
}) {
  const pct = Math.round(Math.min(1, Math.max(0, value)) * 1000) / 10;
  return (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={pct}
      className={cn("h-1.5 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800", className)}
    >
      <div
        className={cn(
          "h-full rounded-full transition-[width] duration-300",
          tone === "green" ? "bg-emerald-500" : tone === "amber" ? "bg-amber-500" : "bg-indigo-500",
        )}
        style={{ width: `${pct}%` }}
      />
    </div>
  );
}
