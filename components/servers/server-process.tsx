"use client";

// A server the playground runs itself (`start --spawn`), on its page: the command, its state (starting,
// running, exited with its code or signal, restarting), a Restart button, and its log — stdout, stderr
// and what the playground says — live, the last lines, kept scrolled to the end unless scrolled up.
import { RotateCw, TerminalSquare } from "lucide-react";
import { useEffect, useRef } from "react";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader, CardTitle } from "@/components/ui/card";
import { ErrorPanel } from "@/components/ui/error-panel";
import { exitedNote, type LogLine, type ProcessStatus } from "@/lib/spawn/types";
import { cn } from "@/lib/ui/cn";
import { useRestartServer, useServerLog } from "./use-server-log";

const STATE: Record<ProcessStatus["state"], { label: string; tone: BadgeTone }> = {
  starting: { label: "starting…", tone: "amber" },
  ready: { label: "running", tone: "green" },
  restarting: { label: "restarting…", tone: "amber" },
  exited: { label: "exited", tone: "red" },
  stopped: { label: "stopped", tone: "neutral" },
};

const time = (ms: number) => new Date(ms).toLocaleTimeString(undefined, { hour12: false });

function stateLabel(status: ProcessStatus): string {
  if (status.state !== "exited" || !status.exit) return STATE[status.state].label;
  const { code, signal } = status.exit;
  return signal ? `killed by ${signal}` : code === null ? "could not start" : `exited with code ${code}`;
}

function LogRow({ line }: { line: LogLine }) {
  return (
    <div
      className={cn(
        "flex gap-3 px-3 leading-5",
        line.stream === "stderr" && "text-red-700 dark:text-red-300",
        line.stream === "system" && "text-indigo-700 dark:text-indigo-300",
      )}
    >
      <span className="shrink-0 select-none text-zinc-400 tabular-nums">{time(line.at)}</span>
      <span className="sr-only">{line.stream === "system" ? "playground:" : `${line.stream}:`}</span>
      <span className="min-w-0 whitespace-pre-wrap break-words">
        {line.stream === "system" ? `▸ ${line.text}` : line.text || " "}
      </span>
    </div>
  );
}

export function ServerProcess({ server }: { server: string }) {
  const { status, lines, dropped, feed } = useServerLog(server);
  const restart = useRestartServer(server);
  const logRef = useRef<HTMLDivElement>(null);
  const stick = useRef(true);

  // Kept at the end as lines come, unless the reader scrolled up to read.
  const last = lines.at(-1)?.seq;
  useEffect(() => {
    const el = logRef.current;
    if (el && stick.current && last !== undefined) el.scrollTop = el.scrollHeight;
  }, [last]);

  const busy = status?.state === "starting" || status?.state === "restarting";
  return (
    <Card className="mb-5">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <TerminalSquare aria-hidden="true" className="size-4 text-zinc-500" />
          Process
          {status && (
            <Badge tone={STATE[status.state].tone} aria-label={`state: ${stateLabel(status)}`}>
              {stateLabel(status)}
            </Badge>
          )}
        </CardTitle>
        <Button
          size="sm"
          variant="secondary"
          aria-label={`Restart ${server}`}
          disabled={!status || status.state === "stopped" || restart.isPending}
          onClick={() => restart.mutate()}
        >
          <RotateCw aria-hidden="true" className={cn(busy && "animate-spin")} /> Restart
        </Button>
      </CardHeader>
      <CardBody className="flex flex-col gap-3">
        {status && (
          <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-xs">
            <dt className="text-zinc-500">Command</dt>
            <dd className="font-mono break-all text-zinc-900 dark:text-zinc-100">
              {status.command}
              {status.shell && (
                <span className="ml-2 font-sans text-zinc-500">
                  (through /bin/sh: it uses {status.shell})
                </span>
              )}
            </dd>
            <dt className="text-zinc-500">Folder</dt>
            <dd className="font-mono break-all">{status.cwd}</dd>
            <dt className="text-zinc-500">Address</dt>
            <dd className="font-mono">
              {status.url}
              {status.pid !== null && <span className="ml-2 font-sans text-zinc-500">pid {status.pid}</span>}
              {status.startedAt !== null && (
                <span className="ml-2 font-sans text-zinc-500">
                  {status.state === "exited" ? "started" : "since"} {time(status.startedAt)}
                </span>
              )}
              {status.restarts > 0 && (
                <span className="ml-2 font-sans text-zinc-500">
                  restarted {status.restarts} time{status.restarts === 1 ? "" : "s"}
                </span>
              )}
            </dd>
            <dt className="text-zinc-500">Restarts</dt>
            <dd>
              {status.watch.length ? (
                <>
                  when a file changes under <span className="font-mono">{status.watch.join(", ")}</span>
                </>
              ) : (
                "with the Restart button (start with --watch DIR to restart on changes)"
              )}
              {status.restartPolicy === "on-failure" &&
                "; and by itself when it exits (--restart on-failure)"}
            </dd>
          </dl>
        )}
        {status?.state === "exited" && status.exit && (
          <div
            role="alert"
            className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-900 dark:bg-red-950 dark:text-red-100"
          >
            <p className="font-semibold">
              {server} {status.exit.description} at {time(status.exit.at)}
            </p>
            <p className="mt-0.5 text-xs opacity-90">Its last lines are below. {exitedNote(status)}</p>
          </div>
        )}
        {status?.restartAt != null && (
          <p role="status" className="text-xs text-amber-700 dark:text-amber-300">
            Restarting at {time(status.restartAt)} (it restarted several times in the last minute).
          </p>
        )}
        {restart.isError && <ErrorPanel compact error={restart.error} />}
        {feed === "error" && (
          <p role="status" className="text-xs text-red-600 dark:text-red-400">
            The log's live feed is lost: reload the page.
          </p>
        )}
        <div
          ref={logRef}
          role="log"
          aria-label={`Log of ${server}`}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is scrolled with the keyboard once focused
          tabIndex={0}
          onScroll={(e) => {
            const el = e.currentTarget;
            stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
          }}
          className="max-h-96 min-h-24 overflow-auto rounded-md border border-zinc-200 bg-zinc-50 py-2 font-mono text-xs text-zinc-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 dark:border-zinc-800 dark:bg-zinc-950 dark:text-zinc-200"
        >
          {lines.length === 0 ? (
            <p className="px-3 text-zinc-500">
              {feed === "connecting" ? "Connecting…" : "Nothing written yet."}
            </p>
          ) : (
            lines.map((line) => <LogRow key={line.seq} line={line} />)
          )}
        </div>
        <p className="text-[11px] text-zinc-500">
          stdout, <span className="text-red-700 dark:text-red-300">stderr</span> and{" "}
          <span className="text-indigo-700 dark:text-indigo-300">▸ the playground's notes</span>, live; the
          last {lines.length} line{lines.length === 1 ? "" : "s"}
          {dropped > 0 ? ` (${dropped} earlier ones not kept)` : ""}.
        </p>
      </CardBody>
    </Card>
  );
}
