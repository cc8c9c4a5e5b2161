// One result of a check (protocol or quality) as a list item: its icon, title, id and label, then
// what the caller shows under them.
import type { ComponentType, ReactNode } from "react";
import { cn } from "@/lib/ui/cn";

export function ResultRow({
  icon: Icon,
  iconClass,
  title,
  id,
  label,
  children,
}: {
  icon: ComponentType<{ className?: string; "aria-hidden"?: boolean | "true" }>;
  iconClass: string;
  title: string;
  id: string;
  label?: ReactNode;
  children: ReactNode;
}) {
  return (
    <li className="flex gap-2.5 px-3 py-2.5">
      <Icon aria-hidden="true" className={cn("mt-0.5 size-4 shrink-0", iconClass)} />
      <div className="min-w-0 flex-1 space-y-1">
        <p className="flex flex-wrap items-center gap-x-1.5 gap-y-1 text-sm text-zinc-900 dark:text-zinc-100">
          <span className="font-medium">{title}</span>
          <code className="text-xs text-zinc-500 dark:text-zinc-400">{id}</code>
          {label}
        </p>
        {children}
      </div>
    </li>
  );
}
