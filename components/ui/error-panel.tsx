"use client";

// An error that says what happened and what to do next, for every failed load in the UI.
import { AlertTriangle, RotateCw } from "lucide-react";
import type { ReactNode } from "react";
import { cn } from "@/lib/ui/cn";
import { Button } from "./button";

export type ErrorContext = { server?: string; serverUrl?: string; env?: string; what?: string };

export type DescribedError = { title: string; message: string; hints: ReactNode[] };

type ErrorLike = { message?: string; status?: number; detail?: string; kind?: string; name?: string };

/** Turns a client/relay error into a title, the server's own words, and next steps. */
export function describeError(error: unknown, ctx: ErrorContext = {}): DescribedError {
  const e = (error ?? {}) as ErrorLike;
  const detail = e.detail || e.message || String(error);
  const where = ctx.serverUrl ? ` at ${ctx.serverUrl}` : "";
  const server = ctx.server ? `"${ctx.server}"` : "the server";
  if (e.kind === "unreachable") {
    return {
      title: "Server unreachable",
      message: detail,
      hints: [
        `Is ${server} running${where}? Start it, then retry.`,
        "Check the URL in the server list on the home page; remove and re-add it if it changed.",
      ],
    };
  }
  if (e.kind === "timeout" || (e.kind === undefined && e.status === 504)) {
    return {
      title: "The server did not answer in time",
      message: detail,
      hints: [`${server}${where} may be busy or stuck. Retry, or check its logs.`],
    };
  }
  if (e.kind === "not-ors" || e.kind === "protocol") {
    return {
      title: "Not an ORS server",
      message: detail,
      hints: [
        `The URL${where} answered, but not with the ORS protocol. Point the server entry at the ORS base URL.`,
      ],
    };
  }
  if (e.status === 401 && /access token/i.test(detail)) {
    // The playground's own token (lib/security), not a server's API key: this tab's cookie is missing
    // or old (a playground started again without PLAYGROUND_TOKEN has a new token).
    return {
      title: "Access token needed",
      message: detail,
      hints: [
        "Open the URL the playground printed when it started (…/?token=…), then retry. A playground started again has a new token unless PLAYGROUND_TOKEN is set.",
      ],
    };
  }
  if (e.kind === "server" && typeof e.status === "number") {
    return {
      title: "The server answered with an error",
      message: detail,
      hints: [`${server} is up but refused the request: the detail says why.`],
    };
  }
  if (e.status === 401) {
    return {
      title: "API key rejected",
      message: detail,
      hints: [`${server} needs an API key. Remove the server and add it again with its key.`],
    };
  }
  if (e.status === 403) {
    return {
      title: "Refused by the relay",
      message: detail,
      hints: ["The playground only forwards to known, allowed servers. See the detail above for why."],
    };
  }
  if (e.status === 404) {
    return {
      title: ctx.what ? `${ctx.what} not found` : "Not found",
      message: detail,
      hints: [
        ctx.env
          ? `Check the environment name "${ctx.env}" against the server's environment list.`
          : "Check the link: the server or resource may have been removed.",
      ],
    };
  }
  if (typeof e.status === "number" && e.status >= 400 && e.status < 500) {
    return {
      title: `The server rejected the request (${e.status})`,
      message: detail,
      hints: ["Fix what the detail names, then retry."],
    };
  }
  if (typeof e.status === "number") {
    return {
      title: `Server error (${e.status})`,
      message: detail,
      hints: [`${server} failed while answering. Check its logs, then retry.`],
    };
  }
  return {
    title: "Something went wrong",
    message: detail,
    hints: ["Retry; if it keeps failing, reload the page."],
  };
}

export function ErrorPanel({
  error,
  context,
  onRetry,
  className,
  compact,
  children,
}: {
  error: unknown;
  context?: ErrorContext;
  onRetry?: () => void;
  className?: string;
  compact?: boolean;
  children?: ReactNode;
}) {
  const d = describeError(error, context);
  return (
    <div
      role="alert"
      className={cn(
        "rounded-md border border-red-200 bg-red-50/70 text-red-900 dark:border-red-900/70 dark:bg-red-950/40 dark:text-red-200",
        compact ? "p-2 text-xs" : "p-3 text-sm",
        className,
      )}
    >
      <div className="flex items-start gap-2">
        <AlertTriangle aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-red-500" />
        <div className="min-w-0 flex-1 space-y-1">
          <p className="font-semibold">{d.title}</p>
          {d.message && (
            <p className="break-words font-mono text-xs text-red-800 dark:text-red-300">{d.message}</p>
          )}
          {d.hints.length > 0 && (
            <ul className="list-disc space-y-0.5 pl-4 text-xs text-red-800/90 dark:text-red-200/80">
              {d.hints.map((h, i) => (
                <li key={i}>{h}</li>
              ))}
            </ul>
          )}
          {children}
        </div>
        {onRetry && (
          <Button size="sm" variant="secondary" onClick={onRetry}>
            <RotateCw aria-hidden="true" />
            Retry
          </Button>
        )}
      </div>
    </div>
  );
}
