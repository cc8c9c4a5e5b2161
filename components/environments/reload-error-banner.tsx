"use client";
// "The last save did not load": shown on an environment's page and on each of its episodes while
// the built-in host keeps serving the environment's previous code because a save of its module
// failed to load (a syntax error, an error thrown while it ran, a defineEnvironment error), with
// the error, its file and line, and that line. It goes away when a fix loads.
import { AlertTriangle } from "lucide-react";
import type { ReloadError, ReloadStatus } from "@/lib/environments/reload-status";
import { useReloadStatus } from "./use-reload-status";

/** `./envs.ts:3:17`, or the file alone when the error names no line. */
export function reloadErrorPlace(e: Pick<ReloadError, "file" | "line" | "column">): string | null {
  if (!e.file) return null;
  if (!e.line) return e.file;
  return `${e.file}:${e.line}${e.column ? `:${e.column}` : ""}`;
}

/**
 * The failed save that `env` still runs its previous code because of (reloadErrorOf in
 * lib/environments/reload-status.ts, here without that module's zod schemas, which stay out of
 * these pages' first-load JS).
 */
function reloadErrorFor(status: ReloadStatus | undefined, env: string): ReloadError | null {
  return status?.errors.find((e) => e.environments.includes(env)) ?? null;
}

export function ReloadErrorBanner({
  server,
  env,
  refresh = false,
}: {
  server: string;
  env: string;
  /** Refresh the environment's tools, splits and tasks when a reload loads (its page does). */
  refresh?: boolean;
}) {
  const status = useReloadStatus(server, refresh ? env : undefined);
  const error = reloadErrorFor(status, env);
  if (!error) return null;
  const place = reloadErrorPlace(error);
  const saved = error.changed.length ? error.changed.join(", ") : "a file";
  return (
    <section
      role="alert"
      aria-label="Reload failed"
      className="mb-4 rounded-lg border border-red-300 bg-red-50 px-4 py-3 text-red-900 dark:border-red-900 dark:bg-red-950 dark:text-red-100"
    >
      <p className="flex items-center gap-2 font-semibold">
        <AlertTriangle aria-hidden="true" className="size-4 shrink-0" />
        The last save did not load
      </p>
      <p className="mt-1 text-sm">
        After <span className="font-mono">{saved}</span> changed, <span className="font-mono">{env}</span>{" "}
        could not be reloaded: it still runs its previous code. Save a fix to reload.
      </p>
      <p className="mt-2 text-sm">
        {place && (
          <>
            <span className="font-mono font-medium" data-testid="reload-error-place">
              {place}
            </span>
            {": "}
          </>
        )}
        <span className="whitespace-pre-wrap break-words">{error.message}</span>
      </p>
      {error.excerpt !== null && error.line !== null && (
        <pre
          title={`Line ${error.line} of ${error.file}`}
          className="mt-2 overflow-x-auto rounded bg-red-100/70 px-2 py-1 font-mono text-[13px] dark:bg-red-900/40"
        >
          <span className="select-none text-red-700/70 dark:text-red-300/70">{error.line} | </span>
          {error.excerpt}
        </pre>
      )}
    </section>
  );
}
