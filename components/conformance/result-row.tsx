// One result of a check (protocol or quality) as a list item: its icon in its outcome's tone, title,
// id and label, then what the caller shows under them.
import type { ComponentType, ReactNode } from "react";
import type { BadgeTone } from "@/components/ui/badge";
import { cn } from "@/lib/ui/cn";

// The icon takes the colour of the outcome's badge, so a finding reads the same in both.
const ICON_COLORS: Record<BadgeTone, string> = {
  red: "text-red-600 dark:text-red-400",
  amber: "text-amber-600 dark:text-amber-400",
  indigo: "text-indigo-600 dark:text-indigo-400",
  sky: "text-sky-600 dark:text-sky-400",
  neutral: "text-zinc-400 dark:text-zinc-500",
  green: "text-emerald-600 dark:text-emerald-400",
};

export function ResultRow({
  result,
  icon: Icon,
  tone,
  label,
  children,
}: {
  result: { title: string; id: string };
  icon: ComponentType<{ className?: string; "aria-hidden"?: boolean | "true" }>;
  tone: BadgeTone;
  label?: ReactNode;
  children: ReactNode;
}) {
  return (
    <li className="flex gap-2.5 px-3 py-2.5">
      <Icon aria-hidden="true" className={cn("mt-0.5 size-4 shrink-0", ICON_COLORS[tone])} />
      <div className="min-w-0 flex-1 space-y-1">
        <p className="flex flex-wrap items-center gap-x-1.5 gap-y-1 text-sm text-zinc-900 dark:text-zinc-100">
          <span className="font-medium">{result.title}</span>
          <code className="text-xs text-zinc-500 dark:text-zinc-400">{result.id}</code>
          {label}
        </p>
        {children}
      </div>
    </li>
  );
}
