"use client";
// The session's tools (/{env}/task_tools, falling back to /{env}/tools) and the form of the chosen
// one. The form (react-jsonschema-form + AJV) loads as its own chunk. A tool without input is one
// button. The input is remembered per tool and task.
import { useEffect, useState } from "react";
import { reflow, takesNoInput } from "@/components/schema-form/schema-utils";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { SectionCard } from "@/components/ui/card";
import { SkeletonBlock } from "@/components/ui/skeleton";
import type { JsonObject, ToolSpec } from "@/lib/ors/protocol";
import { cn } from "@/lib/ui/cn";
import {
  selectEndReason,
  selectHandBusy,
  selectTask,
  useEpisodeStore,
  useEpisodeStoreApi,
} from "@/lib/ui/episode-store";
import { afterPageLoad } from "@/lib/ui/ors-loader";
import { errorMessage, useSessionTools } from "@/lib/ui/use-episode";
import type { ToolCaller } from "@/lib/ui/use-tool-call";
import { rememberedInputKey, useRememberedInput } from "./use-remembered-input";

type ToolFormComponent = typeof import("@/components/schema-form/tool-form").ToolForm;

// The form's code is loaded by hand rather than with next/dynamic (React.lazy): a Suspense boundary
// revealing its content is throttled by React (up to 300 ms after the last fallback), and the form
// is what the user waits for. Once loaded, it renders at once.
let toolFormLoad: Promise<ToolFormComponent> | null = null;
let loadedToolForm: ToolFormComponent | null = null;

function loadToolForm(): Promise<ToolFormComponent> {
  toolFormLoad ??= afterPageLoad()
    .then(() => import("@/components/schema-form/tool-form"))
    .then((m) => {
      loadedToolForm = m.ToolForm;
      return m.ToolForm;
    })
    .catch((err: unknown) => {
      toolFormLoad = null; // a later render tries again
      throw err;
    });
  return toolFormLoad;
}

function useToolFormComponent(): { ToolForm: ToolFormComponent | null; error: unknown; retry: () => void } {
  const [ToolForm, setToolForm] = useState<ToolFormComponent | null>(() => loadedToolForm);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (ToolForm || error) return;
    let live = true;
    loadToolForm().then(
      (c) => live && setToolForm(() => c),
      (err: unknown) => live && setError(err ?? new Error("chunk load failed")),
    );
    return () => {
      live = false;
    };
  }, [ToolForm, error]);
  return { ToolForm, error, retry: () => setError(null) };
}

/** Null, empty-object and `additionalProperties: false` empty schemas all take no input (one button). */
function hasInput(tool: ToolSpec): boolean {
  return !takesNoInput(tool.input_schema);
}

function ToolInput({ tool, caller, ready }: { tool: ToolSpec; caller: ToolCaller; ready: boolean }) {
  const { server, env } = useEpisodeStoreApi().getState();
  const task = useEpisodeStore(selectTask);
  // A model's call in flight leaves Call usable: a call by hand then pauses the model and waits for it.
  const busy = useEpisodeStore(selectHandBusy);
  const end = useEpisodeStore(selectEndReason);
  const [value, setValue, loaded, saveNow] = useRememberedInput(
    rememberedInputKey(server, env, task, tool.name),
  );
  const { ToolForm, error: formError, retry } = useToolFormComponent();
  // `finished: true` is final: no more calls (an outside client may still make some; they are
  // kept in the record, marked as after the end).
  const disabled = busy || end !== null;
  const reason = busy
    ? "A call is in flight."
    : end === "finished"
      ? "The episode finished: no more calls."
      : end
        ? "The episode has ended."
        : undefined;
  const abandon = busy ? (
    <Button size="sm" variant="danger" onClick={caller.abandon}>
      Stop watching
    </Button>
  ) : null;

  // Until the episode is reopened, its task (the remembered input's key) and its end are unknown.
  if (!ready) return <SkeletonBlock label="Opening the episode" lines={3} />;
  if (!hasInput(tool)) {
    return (
      <div className="flex flex-wrap items-center gap-2">
        <Button variant="primary" disabled={disabled} onClick={() => caller.call(tool.name, {})}>
          Call {tool.name}
        </Button>
        <span className="text-xs text-zinc-500 dark:text-zinc-400">
          {reason ?? "This tool takes no input."}
        </span>
        <span className="ml-auto">{abandon}</span>
      </div>
    );
  }
  if (formError) {
    return (
      <div role="alert" className="flex flex-wrap items-center gap-2 text-sm text-red-700 dark:text-red-400">
        <span>Could not load the form: {errorMessage(formError)}</span>
        <Button size="xs" onClick={retry}>
          Try again
        </Button>
      </div>
    );
  }
  if (!loaded || !ToolForm) return <SkeletonBlock label="Loading the form" lines={3} />;
  return (
    <ToolForm
      key={tool.name}
      toolName={tool.name}
      schema={tool.input_schema as JsonObject}
      value={value}
      onChange={setValue}
      onCall={(input) => {
        saveNow();
        void caller.call(tool.name, input);
      }}
      disabled={disabled}
      disabledReason={reason}
      actions={abandon}
    />
  );
}

/**
 * Starts loading the form code (rjsf + AJV, ~150 kB gzipped) early, in parallel with the tools
 * request — once the page has loaded, so it never delays the first-load scripts.
 */
export function preloadToolForm(): void {
  loadToolForm().catch(() => {});
}

// The form's code starts loading at the page's `load` event, not once React has hydrated the page
// and run its effects: on a busy machine that is a few hundred ms later. The session's tools usually
// come with the page (prefetched on the server); when they do not, their request loads the ORS
// client itself.
if (typeof window !== "undefined") preloadToolForm();

/** The session's tools and the chosen one's form; nothing to call once the episode has ended. */
export function ToolPanel({ caller }: { caller: ToolCaller }) {
  useEffect(preloadToolForm, []);
  const ready = useEpisodeStore((s) => s.status === "ready");
  const end = useEpisodeStore(selectEndReason);
  const tools = useSessionTools();
  const [chosen, setChosen] = useState<string | null>(null);
  const list = tools.data?.tools ?? [];
  const current = list.find((t) => t.name === chosen) ?? list[0] ?? null;

  useEffect(() => {
    if (!chosen && list[0]) setChosen(list[0].name);
  }, [chosen, list]);

  return (
    <SectionCard
      title="Tools"
      bodyClassName="flex flex-col gap-3"
      aside={
        tools.data && (
          <span className="text-[11px] text-zinc-500 dark:text-zinc-400" title={tools.data.fallbackReason}>
            from <code className="font-mono">/{tools.data.source}</code>
          </span>
        )
      }
    >
      {end !== null && (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          {end === "finished"
            ? "The episode finished: a tool returned finished: true, so there is nothing more to call."
            : "The episode has ended: its session is gone."}
        </p>
      )}
      {end === null && tools.isPending && <SkeletonBlock label="Loading tools" lines={3} />}
      {tools.error && (
        <div role="alert" className="flex flex-col gap-2 text-sm text-red-700 dark:text-red-400">
          <p>Could not load the tools: {errorMessage(tools.error)}</p>
          <Button size="sm" onClick={() => tools.refetch()}>
            Try again
          </Button>
        </div>
      )}
      {tools.data && list.length === 0 && <p className="text-sm text-zinc-500">This session has no tools.</p>}
      {list.length > 0 && (
        <div className="flex flex-col gap-1.5">
          <span id="tool-picker-label" className="text-xs font-medium text-zinc-600 dark:text-zinc-400">
            Tool
          </span>
          <div role="radiogroup" aria-labelledby="tool-picker-label" className="flex flex-wrap gap-1.5">
            {list.map((t) => (
              <label
                key={t.name}
                className={cn(
                  "relative inline-flex items-center gap-1.5 rounded-md border px-2 py-1 font-mono text-xs has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-indigo-500",
                  current?.name === t.name
                    ? "border-indigo-400 bg-indigo-50 text-indigo-900 dark:border-indigo-600 dark:bg-indigo-950 dark:text-indigo-100"
                    : "border-zinc-300 text-zinc-700 hover:bg-zinc-50 dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800",
                )}
              >
                {/* The native radio covers its label (transparent): clicks, keys and roles are the browser's. */}
                <input
                  type="radio"
                  name="episode-tool"
                  value={t.name}
                  checked={current?.name === t.name}
                  onChange={() => setChosen(t.name)}
                  className="absolute inset-0 cursor-pointer appearance-none rounded-md opacity-0"
                />
                {t.name}
                {!hasInput(t) && (
                  <Badge className="font-sans" aria-hidden="true">
                    no input
                  </Badge>
                )}
              </label>
            ))}
          </div>
        </div>
      )}
      {current && (
        <section aria-label={`Call ${current.name}`} className="flex flex-col gap-3">
          {current.description && (
            <p className="whitespace-pre-wrap text-sm text-zinc-600 dark:text-zinc-400">
              {reflow(current.description)}
            </p>
          )}
          <ToolInput key={current.name} tool={current} caller={caller} ready={ready} />
        </section>
      )}
    </SectionCard>
  );
}
