// Who chose a step when a policy did (its `agent`, from the `x-playground-agent` header): the
// model and its turn, the text it wrote beside its call, and the turn's tokens — shown on the
// episode page and the trajectory page alike. Also how a policy ended an episode without a call.
import { Bot } from "lucide-react";
import type { ReactNode } from "react";
import type { AgentEnd, StepAgent } from "@/lib/trajectory/schema";

function who(agent: { policy: string; model?: string }): string {
  return agent.policy === "model" && agent.model ? `model ${agent.model}` : `${agent.policy} policy`;
}

export function tokensText(usage: { prompt_tokens: number; completion_tokens: number }): string {
  return `${usage.prompt_tokens.toLocaleString("en-US")} in · ${usage.completion_tokens.toLocaleString("en-US")} out tokens`;
}

/** The violet note of what a policy did: a line after its icon, then its message as written. */
function PolicyNote({
  label,
  message,
  children,
}: {
  label: string;
  message?: string | null;
  children: ReactNode;
}) {
  return (
    <div
      role="note"
      aria-label={label}
      className="rounded-md border border-violet-200 bg-violet-50/60 px-3 py-2 text-xs dark:border-violet-900 dark:bg-violet-950/40"
    >
      <p className="flex flex-wrap items-center gap-x-2 text-violet-900 dark:text-violet-200">
        <Bot aria-hidden="true" className="size-3.5" />
        {children}
      </p>
      {message && (
        <p className="mt-1 whitespace-pre-wrap break-words text-zinc-800 dark:text-zinc-200">{message}</p>
      )}
    </div>
  );
}

export function ModelStepNote({ agent }: { agent: StepAgent }) {
  return (
    <PolicyNote label={`Chosen by ${who(agent)}, turn ${agent.turn}`} message={agent.message}>
      <span className="font-medium">{who(agent)}</span>
      <span>turn {agent.turn}</span>
      {agent.usage && (
        <span className="tabular-nums text-violet-700 dark:text-violet-300">{tokensText(agent.usage)}</span>
      )}
    </PolicyNote>
  );
}

export function AgentEndNote({ end }: { end: AgentEnd }) {
  return (
    <PolicyNote label="How the policy ended" message={end.message}>
      <span className="font-medium">The policy stopped: {end.reason.replace(/_/g, " ")}</span>
      {end.usage && <span className="tabular-nums">{tokensText(end.usage)}</span>}
    </PolicyNote>
  );
}
