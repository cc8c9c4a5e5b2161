import { cn } from "@/lib/ui/cn";
import { CopyButton } from "./copy-button";

/** Preformatted monospace text with a copy button; long content scrolls inside. */
export function CodeBlock({
  code,
  label,
  className,
  maxHeight = "24rem",
}: {
  code: string;
  label?: string;
  className?: string;
  maxHeight?: string;
}) {
  return (
    <div
      className={cn(
        "relative rounded-md border border-zinc-200 bg-zinc-50 dark:border-zinc-800 dark:bg-zinc-950",
        className,
      )}
    >
      <div className="flex items-center justify-between border-b border-zinc-200 px-2 py-1 dark:border-zinc-800">
        <span className="text-[11px] font-medium uppercase tracking-wide text-zinc-500">
          {label ?? "Code"}
        </span>
        <CopyButton text={code} label={label ? `Copy ${label}` : "Copy"} />
      </div>
      <pre
        // biome-ignore lint/a11y/noNoninteractiveTabindex: scrollable region must be keyboard reachable
        tabIndex={0}
        className="overflow-auto p-3 font-mono text-xs leading-5 text-zinc-800 dark:text-zinc-200"
        style={{ maxHeight }}
      >
        <code>{code}</code>
      </pre>
    </div>
  );
}
