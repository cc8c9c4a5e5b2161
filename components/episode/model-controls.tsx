"use client";
// "Model at the controls" on the live episode page: pick a configured endpoint and a model id,
// then Step (one turn: the model's text and its calls, shown before anything is sent; each call's
// input in the tool's own form, to send as is, edit, or reject), Play (turn after turn until the
// episode finishes, the model stops or the turn limit), Pause. Calling a tool by hand in the
// Tools panel is taking over. The model's text and tokens are recorded on its steps, so every
// view of the episode shows them (model-step-note.tsx). Logic: lib/ui/use-model-controls.ts.
import { Bot, Pause, Play, StepForward, X } from "lucide-react";
import { useEffect, useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader, CardTitle } from "@/components/ui/card";
import { Input, inputClasses, Label } from "@/components/ui/input";
import { JsonView } from "@/components/ui/json-view";
import { SkeletonBlock } from "@/components/ui/skeleton";
import type { JsonObject, ToolSpec } from "@/lib/ors/protocol";
import { selectBusy, selectEndReason, useEpisodeStore } from "@/lib/ui/episode-store";
import { useModels } from "@/lib/ui/run-queries";
import { useSessionTools } from "@/lib/ui/use-episode";
import { type ModelControls, type Proposal, useModelControls } from "@/lib/ui/use-model-controls";
import type { ToolCaller } from "@/lib/ui/use-tool-call";
import { tokensText } from "./model-step-note";

type ToolFormComponent = typeof import("@/components/schema-form/tool-form").ToolForm;
let loadedToolForm: ToolFormComponent | null = null;

/** The tool form's chunk (the Tools panel loads the same one), for editing a proposed input. */
function useToolForm(): ToolFormComponent | null {
  const [Form, setForm] = useState<ToolFormComponent | null>(() => loadedToolForm);
  useEffect(() => {
    if (Form) return;
    let live = true;
    import("@/components/schema-form/tool-form").then(
      (m) => {
        loadedToolForm = m.ToolForm;
        if (live) setForm(() => m.ToolForm);
      },
      () => {},
    );
    return () => {
      live = false;
    };
  }, [Form]);
  return Form;
}

const SETTINGS_KEY = "ors-model-controls";
const DEFAULT_MAX_TURNS = 30;

/** The endpoint and model last used (this browser), so a presenter picks them once. */
function useRememberedSettings() {
  const [endpoint, setEndpoint] = useState("");
  const [model, setModel] = useState("");
  useEffect(() => {
    try {
      const saved = JSON.parse(localStorage.getItem(SETTINGS_KEY) ?? "{}") as {
        endpoint?: unknown;
        model?: unknown;
      };
      if (typeof saved.endpoint === "string") setEndpoint(saved.endpoint);
      if (typeof saved.model === "string") setModel(saved.model);
    } catch {
      // nothing saved
    }
  }, []);
  const save = (e: string, m: string) => {
    try {
      localStorage.setItem(SETTINGS_KEY, JSON.stringify({ endpoint: e, model: m }));
    } catch {
      // storage disabled
    }
  };
  return { endpoint, setEndpoint, model, setModel, save };
}

export function ModelControlsPanel({ caller }: { caller: ToolCaller }) {
  const ids = useId();
  const models = useModels();
  const remembered = useRememberedSettings();
  const [maxTurns, setMaxTurns] = useState(String(DEFAULT_MAX_TURNS));
  const end = useEpisodeStore(selectEndReason);
  const busy = useEpisodeStore(selectBusy);
  const endpoints = models.data ?? [];
  const endpoint = endpoints.some((m) => m.name === remembered.endpoint)
    ? remembered.endpoint
    : (endpoints[0]?.name ?? "");
  const turns = Math.floor(Number(maxTurns));
  const turnsOk = Number.isInteger(turns) && turns >= 1 && turns <= 1000;
  const m = useModelControls(caller, {
    endpoint,
    model: remembered.model,
    maxTurns: turnsOk ? turns : DEFAULT_MAX_TURNS,
  });

  const ended = end !== null;
  const idle = m.activity === "idle" && !m.playing;
  const canAct = !ended && idle && !busy && !!endpoint && !!remembered.model.trim() && turnsOk;
  const doing =
    m.activity === "thinking"
      ? "the model is thinking…"
      : m.activity === "sending"
        ? "sending its call…"
        : "";
  const status = m.playing
    ? m.pausing
      ? "Pausing after this call…"
      : `Playing: turn ${m.playedTurns} of at most ${turnsOk ? turns : DEFAULT_MAX_TURNS}${doing ? ` · ${doing}` : ""}`
    : doing
      ? doing.charAt(0).toUpperCase() + doing.slice(1)
      : ended && !m.proposal
        ? "The episode has ended."
        : "";

  return (
    <Card>
      <CardHeader>
        <CardTitle id={`${ids}-title`} className="flex items-center gap-1.5">
          <Bot aria-hidden="true" className="size-4 text-violet-600" /> Model at the controls
        </CardTitle>
      </CardHeader>
      <CardBody>
        <section aria-labelledby={`${ids}-title`} className="flex flex-col gap-3">
          {models.isSuccess && endpoints.length === 0 ? (
            <p className="text-xs text-zinc-600 dark:text-zinc-400">
              No model endpoint is configured. Start the playground with{" "}
              <code className="font-mono">PLAYGROUND_MODELS=name=http://127.0.0.1:8000/v1</code> to let a
              model play this episode.
            </p>
          ) : (
            <>
              <div className="grid grid-cols-[1fr_1fr_4.5rem] gap-2">
                <div className="min-w-0 space-y-1">
                  <Label htmlFor={`${ids}-endpoint`}>Model endpoint</Label>
                  <select
                    id={`${ids}-endpoint`}
                    className={inputClasses}
                    value={endpoint}
                    disabled={!idle}
                    onChange={(e) => {
                      remembered.setEndpoint(e.target.value);
                      remembered.save(e.target.value, remembered.model);
                    }}
                  >
                    {endpoints.length === 0 && <option value="">loading…</option>}
                    {endpoints.map((e) => (
                      <option key={e.name} value={e.name}>
                        {e.name}
                      </option>
                    ))}
                  </select>
                </div>
                <div className="min-w-0 space-y-1">
                  <Label htmlFor={`${ids}-model`}>Model id</Label>
                  <Input
                    id={`${ids}-model`}
                    value={remembered.model}
                    disabled={!idle}
                    placeholder="e.g. gpt-4o-mini"
                    onChange={(e) => {
                      remembered.setModel(e.target.value);
                      remembered.save(endpoint, e.target.value);
                    }}
                  />
                </div>
                <div className="min-w-0 space-y-1">
                  <Label htmlFor={`${ids}-turns`}>Max turns</Label>
                  <Input
                    id={`${ids}-turns`}
                    inputMode="numeric"
                    value={maxTurns}
                    disabled={!idle}
                    aria-invalid={!turnsOk}
                    onChange={(e) => setMaxTurns(e.target.value)}
                  />
                </div>
              </div>
              <div className="flex flex-wrap items-center gap-2">
                <Button
                  size="sm"
                  disabled={!canAct || m.proposal?.calls.some((c) => c.state === "pending")}
                  onClick={() => void m.step()}
                  title="Ask the model for one turn; nothing is sent until you say so"
                >
                  <StepForward aria-hidden="true" /> Step
                </Button>
                {m.playing ? (
                  <Button size="sm" variant="danger" disabled={m.pausing} onClick={m.pause}>
                    <Pause aria-hidden="true" /> Pause
                  </Button>
                ) : (
                  <Button
                    size="sm"
                    variant="primary"
                    disabled={!canAct}
                    onClick={() => void m.play()}
                    title="Let the model play turn after turn until the episode finishes or the turn limit"
                  >
                    <Play aria-hidden="true" /> Play
                  </Button>
                )}
                <span role="status" className="text-xs text-zinc-600 dark:text-zinc-400">
                  {status}
                </span>
              </div>
              {!turnsOk && (
                <p className="text-xs text-red-700 dark:text-red-400">
                  Max turns: a whole number from 1 to 1000.
                </p>
              )}
              {m.error && (
                <p
                  role="alert"
                  className="rounded-md bg-red-50 p-2 text-xs text-red-800 dark:bg-red-950 dark:text-red-200"
                >
                  {m.error}
                </p>
              )}
              {m.notice && (
                <p className="rounded-md bg-violet-50 p-2 text-xs text-violet-900 dark:bg-violet-950 dark:text-violet-200">
                  {m.notice}
                </p>
              )}
              {m.proposal && <ProposalView proposal={m.proposal} controls={m} busy={busy} />}
            </>
          )}
        </section>
      </CardBody>
    </Card>
  );
}

function ProposalView({
  proposal,
  controls,
  busy,
}: {
  proposal: Proposal;
  controls: ModelControls;
  busy: boolean;
}) {
  const tools = useSessionTools();
  const first = proposal.calls.findIndex((c) => c.state === "pending" || c.state === "sending");
  return (
    <section
      aria-label="Model proposal"
      className="flex flex-col gap-2 rounded-md border border-violet-200 p-2 dark:border-violet-900"
    >
      <header className="flex flex-wrap items-center gap-2 text-xs">
        <span className="font-semibold">Turn {proposal.turn}</span>
        {proposal.usage && (
          <span className="tabular-nums text-zinc-500">
            {tokensText({
              prompt_tokens: proposal.usage.promptTokens,
              completion_tokens: proposal.usage.completionTokens,
            })}
          </span>
        )}
        {!controls.playing && (
          <Button
            size="xs"
            variant="ghost"
            className="ml-auto"
            onClick={controls.dismiss}
            aria-label="Dismiss the proposal"
          >
            <X aria-hidden="true" />
          </Button>
        )}
      </header>
      {proposal.calls.some((c) => c.state === "pending") && !controls.playing && (
        <p className="text-xs text-zinc-500">
          Not sent yet: call it as proposed, edit its input first, or reject it — or call a tool yourself.
        </p>
      )}
      {proposal.message ? (
        <blockquote className="whitespace-pre-wrap break-words border-l-2 border-violet-300 pl-2 text-sm dark:border-violet-700">
          {proposal.message}
        </blockquote>
      ) : (
        <p className="text-xs text-zinc-500">The model wrote no text beside its call.</p>
      )}
      {proposal.calls.map((c, i) => (
        <ProposedCall
          key={`${proposal.turn}:${c.id}`}
          index={i}
          count={proposal.calls.length}
          call={c}
          tool={tools.data?.tools.find((t) => t.name === c.tool) ?? null}
          editable={!controls.playing && i === first && c.state === "pending" && !busy}
          controls={controls}
        />
      ))}
    </section>
  );
}

function ProposedCall({
  index,
  count,
  call,
  tool,
  editable,
  controls,
}: {
  index: number;
  count: number;
  call: Proposal["calls"][number];
  tool: ToolSpec | null;
  editable: boolean;
  controls: ModelControls;
}) {
  const ToolForm = useToolForm();
  const [value, setValue] = useState<JsonObject>(() => call.input as JsonObject);
  const name = count > 1 ? `Proposed call ${index + 1}: ${call.tool}` : `Proposed call: ${call.tool}`;
  const state =
    call.state === "sent"
      ? "sent"
      : call.state === "rejected"
        ? "rejected"
        : call.state === "sending"
          ? "sending…"
          : null;
  const reject = (
    <Button size="sm" variant="danger" onClick={() => controls.reject(index)}>
      Reject
    </Button>
  );
  return (
    <section
      aria-label={name}
      className="flex flex-col gap-2 border-t border-violet-100 pt-2 dark:border-violet-900"
    >
      <p className="flex items-center gap-2 text-xs">
        <span className="font-mono font-semibold">{call.tool}</span>
        {state && <span className="text-zinc-500">{state}</span>}
        {!tool && <span className="text-amber-700 dark:text-amber-400">not a tool of this session</span>}
      </p>
      {!editable ? (
        <JsonView value={call.input as JsonObject} label={`${call.tool} input`} maxHeight="10rem" />
      ) : !tool ? (
        <div className="flex flex-wrap items-center gap-2">
          <JsonView value={call.input as JsonObject} label={`${call.tool} input`} maxHeight="10rem" />
          <Button
            size="sm"
            variant="primary"
            onClick={() => void controls.send(index, call.input as JsonObject)}
          >
            Send anyway
          </Button>
          {reject}
        </div>
      ) : ToolForm ? (
        <ToolForm
          toolName={call.tool}
          schema={tool.input_schema as JsonObject}
          value={value}
          onChange={setValue}
          onCall={(input) => void controls.send(index, input)}
          actions={reject}
        />
      ) : (
        <SkeletonBlock label="Loading the form" lines={2} />
      )}
    </section>
  );
}
