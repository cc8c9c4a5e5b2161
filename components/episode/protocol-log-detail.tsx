"use client";
// One request of the protocol log in full: method, path, status, timing, the headers the relay
// kept (secrets masked) and the raw request and response bodies — always as text, never as HTML.
// A tool call can be sent again from here: "Replay" as it was, "Edit and replay" in the tool's JSON
// editor. The call goes through the relay like any other, annotated (x-playground-step) so that its
// new step is marked as a replay of this request.
import { useState } from "react";
import { jsonEqual } from "@/components/schema-form/json-text";
import { ToolForm } from "@/components/schema-form/tool-form";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { ErrorPanel } from "@/components/ui/error-panel";
import { SkeletonBlock } from "@/components/ui/skeleton";
import type { JsonObject } from "@/lib/ors/protocol";
import { selectBusy, selectEndReason, useEpisodeStore, useEpisodeStoreApi } from "@/lib/ui/episode-store";
import {
  displayBody,
  type ExchangeSide,
  formatClock,
  formatMs,
  isWhole,
  type LogEntry,
  type LoggedExchange,
  replayOriginOf,
  statusTone,
} from "@/lib/ui/protocol-log";
import { isCallExchange, replayAnnotation, replayableCall } from "@/lib/ui/protocol-log-replay";
import { useSessionTools } from "@/lib/ui/use-episode";
import type { ToolCaller } from "@/lib/ui/use-tool-call";
import { goToStep } from "./step-list";

function Body({ label, side, contentType }: { label: string; side: ExchangeSide; contentType?: string }) {
  const text = displayBody(side, contentType);
  return (
    <div className="flex flex-col gap-1">
      <div className="flex items-center gap-2 text-xs text-zinc-500 dark:text-zinc-400">
        <span className="font-medium text-zinc-700 dark:text-zinc-300">{label}</span>
        <span className="tabular-nums">{side.size.toLocaleString()} bytes</span>
        {side.truncated && (
          <Badge tone="amber">cut in the log: first {side.body.length.toLocaleString()} characters</Badge>
        )}
        {text && (
          <span className="ml-auto">
            <CopyButton text={side.body} label={`Copy the ${label.toLowerCase()}`} />
          </span>
        )}
      </div>
      {text ? (
        // A region the keyboard can scroll (Tab to it, then the arrow keys).
        <section
          aria-label={label}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard
          tabIndex={0}
          className="max-h-80 overflow-auto rounded-md bg-zinc-50 p-2 outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 dark:bg-zinc-950"
        >
          <pre className="whitespace-pre-wrap break-all font-mono text-xs text-zinc-800 dark:text-zinc-200">
            {text}
          </pre>
        </section>
      ) : (
        <p className="text-xs italic text-zinc-500">Empty.</p>
      )}
    </div>
  );
}

function Headers({ headers }: { headers: Record<string, string> }) {
  const entries = Object.entries(headers);
  if (entries.length === 0) return <p className="text-xs italic text-zinc-500">No headers kept.</p>;
  return (
    <dl className="grid grid-cols-[max-content_minmax(0,1fr)] gap-x-3 gap-y-0.5 font-mono text-xs">
      {entries.map(([k, v]) => (
        <div key={k} className="contents">
          <dt className="text-zinc-500 dark:text-zinc-400">{k}</dt>
          <dd className="break-all">{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/** "Replay" and "Edit and replay" of a logged call, and what became of the replay. */
function ReplayControls({ exchange, caller }: { exchange: LoggedExchange; caller: ToolCaller }) {
  const store = useEpisodeStoreApi();
  const busy = useEpisodeStore(selectBusy);
  const end = useEpisodeStore(selectEndReason);
  const tools = useSessionTools();
  const [editing, setEditing] = useState<JsonObject | null>(null);
  const [sent, setSent] = useState<{ callId: string; edited: boolean; after: number } | null>(null);
  // The step it became: the first after those the episode had, marked as a replay of this request
  // (the tab forgets its own call once its step has ended, so the record is what says).
  const became = useEpisodeStore((s) =>
    sent
      ? (s.trajectory?.steps.find(
          (st) => st.index > sent.after && replayOriginOf(st)?.exchange === exchange.seq,
        )?.index ?? null)
      : null,
  );
  const failed = useEpisodeStore((s) =>
    sent ? (s.calls.find((c) => c.callId === sent.callId)?.error ?? null) : null,
  );
  const call = replayableCall(exchange);
  if ("problem" in call) return <p className="text-xs text-zinc-500 dark:text-zinc-400">{call.problem}</p>;
  const why =
    end === "finished"
      ? "The episode finished: no more calls."
      : end
        ? "The episode has ended: its session is gone."
        : busy
          ? "A call is in flight."
          : null;
  const send = (input: JsonObject) => {
    const edited = !jsonEqual(input, call.input);
    setEditing(null);
    const after = Math.max(0, ...(store.getState().trajectory?.steps.map((st) => st.index) ?? []));
    const before = new Set(store.getState().calls.map((c) => c.callId));
    // The call is in the store as soon as it is made (its stream may take long): followed from there.
    void caller.call(call.tool, input, { step: replayAnnotation(exchange.seq, edited) });
    const callId = store.getState().calls.find((c) => !before.has(c.callId))?.callId ?? "";
    setSent({ callId, edited, after });
  };
  const spec = tools.data?.tools.find((t) => t.name === call.tool);
  return (
    <div className="flex flex-col gap-2 rounded-md border border-zinc-200 p-2 dark:border-zinc-800">
      <div className="flex flex-wrap items-center gap-2">
        <Button size="sm" variant="primary" disabled={why !== null} onClick={() => send(call.input)}>
          Replay
        </Button>
        <Button size="sm" disabled={why !== null || editing !== null} onClick={() => setEditing(call.input)}>
          Edit and replay
        </Button>
        <span className="text-xs text-zinc-500 dark:text-zinc-400">
          {why ?? (
            <>
              Calls <code className="font-mono">{call.tool}</code> again: the result is a new step, marked
              “replayed from #{exchange.seq}”.
            </>
          )}
        </span>
      </div>
      {sent && (
        <p role="status" className="text-xs text-zinc-700 dark:text-zinc-300">
          {failed ? (
            <>The replay failed: {failed}</>
          ) : became !== null ? (
            <>
              Sent{sent.edited ? " with the edited input" : ""}: it became{" "}
              <a
                href={`?step=${became}`}
                onClick={(e) => {
                  e.preventDefault();
                  goToStep(became);
                }}
                className="font-medium text-indigo-700 underline dark:text-indigo-300"
              >
                step {became}
              </a>
              .
            </>
          ) : (
            <>Sent{sent.edited ? " with the edited input" : ""}: waiting for its step…</>
          )}
        </p>
      )}
      {editing && (
        <section aria-label={`Edit and replay request ${exchange.seq}`} className="flex flex-col gap-2">
          <p className="text-xs text-zinc-600 dark:text-zinc-400">
            The input of request #{exchange.seq} in the JSON editor of{" "}
            <code className="font-mono">{call.tool}</code>
            {spec ? "" : " (its schema is unknown to this page: any JSON object is sent)"}. Change it, then
            call.
          </p>
          <ToolForm
            toolName={call.tool}
            schema={(spec?.input_schema as JsonObject | null | undefined) ?? { type: "object" }}
            value={editing}
            onChange={setEditing}
            onCall={(input) => send(input)}
            initialTab="json"
            disabled={why !== null}
            disabledReason={why ?? undefined}
            actions={
              <Button size="sm" variant="ghost" onClick={() => setEditing(null)}>
                Cancel
              </Button>
            }
          />
        </section>
      )}
    </div>
  );
}

export function ExchangeDetail({
  id,
  entry,
  caller,
  error,
  onRetry,
}: {
  /** Focused when the list's Enter opens it. */
  id: string;
  entry: LogEntry;
  caller: ToolCaller;
  /** Why its bodies could not be read (an entry known only from the live feed). */
  error: unknown;
  onRetry: () => void;
}) {
  return (
    <section
      id={id}
      tabIndex={-1}
      aria-label={`Request ${entry.seq}`}
      className="flex min-w-0 flex-col gap-3 rounded-md border border-zinc-200 p-3 outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 dark:border-zinc-800"
    >
      <header className="flex flex-wrap items-center gap-2">
        <h3 className="font-mono text-sm font-semibold">
          {entry.method} {entry.path}
        </h3>
        <Badge tone={statusTone(entry.status)}>{entry.status || "no answer"}</Badge>
        <span className="text-xs tabular-nums text-zinc-500 dark:text-zinc-400">
          #{entry.seq} · {formatClock(entry.at)} · {formatMs(entry.ms)}
        </span>
      </header>
      {!isWhole(entry) ? (
        error ? (
          <ErrorPanel compact error={error} context={{ what: `request ${entry.seq}` }} onRetry={onRetry} />
        ) : (
          <SkeletonBlock label="Loading its bodies" lines={3} />
        )
      ) : (
        <>
          {isCallExchange(entry) && <ReplayControls exchange={entry} caller={caller} />}
          <div className="flex flex-col gap-2">
            <h4 className="text-xs font-semibold uppercase tracking-wide text-zinc-500">Request</h4>
            <Headers headers={entry.request.headers} />
            <Body
              label="Request body"
              side={entry.request}
              contentType={entry.request.headers["content-type"]}
            />
          </div>
          <div className="flex flex-col gap-2">
            <h4 className="text-xs font-semibold uppercase tracking-wide text-zinc-500">
              Response{" "}
              <span className="font-mono font-normal normal-case">
                {entry.response.contentType || "no content type"}
              </span>
            </h4>
            <Body label="Response body" side={entry.response} contentType={entry.response.contentType} />
          </div>
        </>
      )}
    </section>
  );
}
