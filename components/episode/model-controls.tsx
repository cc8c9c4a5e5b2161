"use client";
// "Model at the controls" on the live episode page: pick a configured endpoint and a model id (the
// ids the endpoint lists are offered; the last one chosen for it comes back), then Step (one turn:
// the model's text and its calls, shown before anything is sent; each call's input in the tool's
// own form, to send as is, edit, or reject), Play (turn after turn until the episode finishes, the
// model stops, a call does not fit its tool's schema, or the turn limit), Pause. Calling a tool by
// hand in the Tools panel is taking over: the model pauses at once. The model's text and tokens are
// recorded on its steps, so every view of the episode shows them (model-step-note.tsx). Logic:
// lib/ui/use-model-controls.ts.
import { Bot, Pause, Play, StepForward } from "lucide-react";
import { useCallback, useEffect, useId, useState } from "react";
import { ModelIdInput, modelListHint } from "@/components/models/model-id-input";
import { inputProblems } from "@/components/schema-form/validation";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader, CardTitle } from "@/components/ui/card";
import { FieldHint, Input, Label, Select } from "@/components/ui/input";
import type { JsonObject } from "@/lib/ors/protocol";
import { selectBusy, selectEndReason, useEpisodeStore } from "@/lib/ui/episode-store";
import { useModelChoice } from "@/lib/ui/model-choice";
import { useModels } from "@/lib/ui/run-queries";
import { useSessionTools } from "@/lib/ui/use-episode";
import { type ModelControls, useModelControls } from "@/lib/ui/use-model-controls";
import type { ToolCaller } from "@/lib/ui/use-tool-call";
import { ProposalView } from "./model-proposal";

const ENDPOINT_KEY = "ors-model-controls";
const DEFAULT_MAX_TURNS = 30;

/** The endpoint last used (this browser), so a presenter picks it once; the model id is remembered per endpoint. */
function useRememberedEndpoint(): [string, (endpoint: string) => void] {
  const [endpoint, setEndpoint] = useState("");
  useEffect(() => {
    try {
      const saved = JSON.parse(localStorage.getItem(ENDPOINT_KEY) ?? "{}") as { endpoint?: unknown };
      if (typeof saved.endpoint === "string") setEndpoint(saved.endpoint);
    } catch {
      // nothing saved
    }
  }, []);
  const choose = (e: string) => {
    setEndpoint(e);
    try {
      localStorage.setItem(ENDPOINT_KEY, JSON.stringify({ endpoint: e }));
    } catch {
      // storage disabled
    }
  };
  return [endpoint, choose];
}

/** The form's verdict on a proposed input, for the tool of that name in this session. */
function useInputCheck(): (tool: string, input: JsonObject) => Promise<string[]> {
  const tools = useSessionTools();
  const list = tools.data?.tools;
  return useCallback(
    async (tool, input) => {
      const spec = list?.find((t) => t.name === tool);
      if (!spec) return [`${tool} is not a tool of this session`];
      return spec.input_schema ? inputProblems(spec.input_schema as JsonObject, input) : [];
    },
    [list],
  );
}

/**
 * The panel's settings: the endpoints configured and the one chosen (remembered), its model id, and
 * the turn limit as typed and as played (the default while what is typed is not a limit).
 */
function useModelSettings() {
  const models = useModels();
  const [remembered, setEndpoint] = useRememberedEndpoint();
  const [maxTurns, setMaxTurns] = useState(String(DEFAULT_MAX_TURNS));
  const endpoints = (models.data ?? []).map((m) => m.name);
  const endpoint = endpoints.includes(remembered) ? remembered : (endpoints[0] ?? "");
  const model = useModelChoice(endpoint);
  const typed = Math.floor(Number(maxTurns));
  const turnsOk = Number.isInteger(typed) && typed >= 1 && typed <= 1000;
  const turns = turnsOk ? typed : DEFAULT_MAX_TURNS;
  return { models, endpoints, endpoint, setEndpoint, model, maxTurns, setMaxTurns, turnsOk, turns };
}

type ModelSettings = ReturnType<typeof useModelSettings>;

function SettingsFields({ ids, settings, idle }: { ids: string; settings: ModelSettings; idle: boolean }) {
  const {
    endpoints,
    endpoint,
    setEndpoint: onEndpoint,
    model,
    maxTurns,
    setMaxTurns: onMaxTurns,
    turnsOk,
  } = settings;
  const hint = modelListHint(model);
  return (
    <div className="grid grid-cols-[1fr_1fr_4.5rem] gap-2">
      <div className="min-w-0 space-y-1">
        <Label htmlFor={`${ids}-endpoint`}>Model endpoint</Label>
        <Select
          id={`${ids}-endpoint`}
          value={endpoint}
          disabled={!idle}
          onValueChange={onEndpoint}
          options={endpoints}
        >
          {endpoints.length === 0 && <option value="">loading…</option>}
        </Select>
      </div>
      <div className="min-w-0 space-y-1">
        <Label htmlFor={`${ids}-model`}>Model id</Label>
        <ModelIdInput
          id={`${ids}-model`}
          choice={model}
          disabled={!idle}
          aria-describedby={hint ? `${ids}-model-hint` : undefined}
        />
        {hint && <FieldHint id={`${ids}-model-hint`}>{hint}</FieldHint>}
      </div>
      <div className="min-w-0 space-y-1">
        <Label htmlFor={`${ids}-turns`}>Max turns</Label>
        <Input
          id={`${ids}-turns`}
          inputMode="numeric"
          value={maxTurns}
          disabled={!idle}
          aria-invalid={!turnsOk}
          onChange={(e) => onMaxTurns(e.target.value)}
        />
      </div>
    </div>
  );
}

/** What the model is doing, in words; once the episode has ended, only that. */
function statusText(m: ModelControls, ended: boolean, turns: number): string {
  const doing =
    m.activity === "thinking"
      ? "the model is thinking…"
      : m.activity === "sending"
        ? "sending its call…"
        : "";
  if (m.playing)
    return m.pausing
      ? "Pausing after this call…"
      : `Playing: turn ${m.playedTurns} of at most ${turns}${doing ? ` · ${doing}` : ""}`;
  if (doing) return doing.charAt(0).toUpperCase() + doing.slice(1);
  return ended && !m.proposal ? "The episode has ended." : "";
}

function Buttons({ m, canAct, status }: { m: ModelControls; canAct: boolean; status: string }) {
  return (
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
  );
}

function Messages({ m, ended, turnsOk }: { m: ModelControls; ended: boolean; turnsOk: boolean }) {
  // A pause says how to hand the episode back: not once it has ended.
  const notice = m.notice && !(ended && m.notice.kind === "paused") ? m.notice.text : null;
  return (
    <>
      {!turnsOk && (
        <p className="text-xs text-red-700 dark:text-red-400">Max turns: a whole number from 1 to 1000.</p>
      )}
      {m.error && (
        <p
          role="alert"
          className="rounded-md bg-red-50 p-2 text-xs text-red-800 dark:bg-red-950 dark:text-red-200"
        >
          {m.error}
        </p>
      )}
      {notice && (
        <p className="rounded-md bg-violet-50 p-2 text-xs text-violet-900 dark:bg-violet-950 dark:text-violet-200">
          {notice}
        </p>
      )}
    </>
  );
}

export function ModelControlsPanel({ caller }: { caller: ToolCaller }) {
  const ids = useId();
  const settings = useModelSettings();
  const { models, endpoints, endpoint, model, turnsOk, turns } = settings;
  const end = useEpisodeStore(selectEndReason);
  const busy = useEpisodeStore(selectBusy);
  const checkInput = useInputCheck();
  const m = useModelControls(caller, { endpoint, model: model.model, maxTurns: turns, checkInput });
  const ended = end !== null;
  const idle = m.activity === "idle" && !m.playing;
  const canAct = !ended && idle && !busy && !!endpoint && !!model.model.trim() && turnsOk;

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
              <SettingsFields ids={ids} settings={settings} idle={idle} />
              <Buttons m={m} canAct={canAct} status={statusText(m, ended, turns)} />
              <Messages m={m} ended={ended} turnsOk={turnsOk} />
              {m.proposal && <ProposalView proposal={m.proposal} controls={m} busy={busy} />}
            </>
          )}
        </section>
      </CardBody>
    </Card>
  );
}
