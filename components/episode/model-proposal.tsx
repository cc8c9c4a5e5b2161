"use client";
// A model's proposal on the episode page: its turn, tokens and text, then each proposed call —
// its input in the tool's own form (to send as proposed, edit, or reject) while it is the next one
// to send, else as JSON with what became of it (sending, sent, rejected).
import { X } from "lucide-react";
import { useEffect, useState } from "react";
import { Button } from "@/components/ui/button";
import { JsonView } from "@/components/ui/json-view";
import { SkeletonBlock } from "@/components/ui/skeleton";
import type { JsonObject, ToolSpec } from "@/lib/ors/protocol";
import { useSessionTools } from "@/lib/ui/use-episode";
import type { ModelControls, Proposal, ProposedCallState } from "@/lib/ui/use-model-controls";
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

export function ProposalView({
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

/** What a proposed call's state shows beside it (a pending call shows its buttons instead). */
const CALL_STATES: Record<ProposedCallState, string | null> = {
  pending: null,
  sending: "sending…",
  sent: "sent",
  rejected: "rejected",
};

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
  const state = CALL_STATES[call.state];
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
