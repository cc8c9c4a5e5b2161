// The `script` policy (docs/runs.md "Script policies"): the author's own TypeScript/JavaScript module
// exporting a policy function — an oracle that knows the answer, a heuristic baseline — loaded the
// way `--env` modules are (lib/environments/module-loader.ts: run time, afresh on every run, so an
// edit applies to the next run). The function answers each turn from what the episode showed.
import "server-only";
import path from "node:path";
import { loadFresh } from "@/lib/environments/module-loader";
import type { Block, JsonObject, RunToolOutput, ToolSpec } from "@/lib/ors/protocol";
import { type Policy, PolicyError, stopTurn, type TurnUsage } from "./policy";

/** What a script's function gets each turn. */
export interface ScriptTurnInput {
  env: string;
  split: string | null;
  taskIndex: number | null;
  repeat: number;
  /** 1 on the first turn. */
  turn: number;
  prompt: Block[];
  tools: ToolSpec[];
  /** Every call made so far in the episode and its result, in order. */
  history: { tool: string; input: JsonObject; result: RunToolOutput }[];
  /** The task object (`/task`), fetched on first use. */
  task(): Promise<JsonObject | null>;
  /** The prompt's text blocks joined (a convenience). */
  text: string;
  /** Kept from turn to turn of the episode: the function's own memory. */
  state: Record<string, unknown>;
  signal: AbortSignal;
}

/** What the function answers: one call, several, or a stop (null, or `{stop}`). */
export type ScriptAnswer =
  | { tool: string; input?: JsonObject; message?: string }
  | { calls: { tool: string; input?: JsonObject }[]; message?: string; usage?: TurnUsage }
  | { stop: string; message?: string }
  | null
  | undefined;

export type ScriptPolicyFunction = (turn: ScriptTurnInput) => ScriptAnswer | Promise<ScriptAnswer>;

const EXTENSIONS = /\.(ts|mts|cts|tsx|js|mjs|cjs)$/;

/** The module's policy function: its default export, else an export named `policy`. */
export function scriptFunctionOf(namespace: Record<string, unknown>, label: string): ScriptPolicyFunction {
  const d = namespace.default;
  const fn =
    typeof d === "function"
      ? d
      : d && typeof d === "object" && typeof (d as { policy?: unknown }).policy === "function"
        ? (d as { policy: unknown }).policy
        : namespace.policy;
  if (typeof fn !== "function")
    throw new PolicyError(
      `${label} exports no policy function: \`export default function policy(turn) { return { tool, input } }\` (or a named export \`policy\`)`,
    );
  return fn as ScriptPolicyFunction;
}

/** Loads the script module (a path, resolved against `cwd`); a clear PolicyError when it cannot. */
export async function loadScriptPolicy(file: string, cwd = process.cwd()): Promise<Policy> {
  const abs = path.resolve(cwd, file);
  if (!EXTENSIONS.test(abs))
    throw new PolicyError(`${file}: a script policy is a .ts, .mts, .js or .mjs module`);
  let namespace: Record<string, unknown>;
  try {
    namespace = (await loadFresh(abs)).namespace;
  } catch (err) {
    throw new PolicyError(`${file} could not be loaded: ${(err as Error).message}`, { cause: err });
  }
  return createScriptPolicy(scriptFunctionOf(namespace, file), path.basename(file));
}

function answerTurn(a: ScriptAnswer, turn: number) {
  if (a === null || a === undefined) return stopTurn("policy_stop");
  if ("stop" in a) return stopTurn(a.stop || "policy_stop", a.message ?? null);
  const calls = "calls" in a ? a.calls : [a];
  if (!Array.isArray(calls) || calls.some((c) => !c || typeof c.tool !== "string"))
    throw new PolicyError(
      `turn ${turn}: the script answered ${JSON.stringify(a).slice(0, 200)}, not {tool, input}`,
    );
  if (calls.length === 0) return stopTurn("policy_stop", a.message ?? null);
  return {
    calls: calls.map((c, i) => ({ id: `script_${turn}_${i + 1}`, tool: c.tool, input: c.input ?? {} })),
    message: a.message ?? null,
    usage: "usage" in a && a.usage ? a.usage : null,
  };
}

export function createScriptPolicy(fn: ScriptPolicyFunction, label: string): Policy {
  return {
    kind: "script",
    label: `script ${label}`,
    startEpisode(ctx) {
      const history: ScriptTurnInput["history"] = [];
      const state: Record<string, unknown> = {};
      let turn = 0;
      const text = ctx.prompt
        .filter((b) => b.type === "text")
        .map((b) => (b as { text: string }).text)
        .join("\n\n");
      return {
        async next(outcomes) {
          for (const o of outcomes)
            history.push({ tool: o.call.tool, input: o.call.input, result: o.result });
          turn++;
          let answer: ScriptAnswer;
          try {
            answer = await fn({
              env: ctx.env,
              split: ctx.split,
              taskIndex: ctx.taskIndex,
              repeat: ctx.repeat,
              turn,
              prompt: ctx.prompt,
              tools: ctx.tools,
              history: [...history],
              task: ctx.task,
              text,
              state,
              signal: ctx.signal,
            });
          } catch (err) {
            throw new PolicyError(
              `the script policy threw on turn ${turn}: ${(err as Error)?.message ?? String(err)}`,
              {
                cause: err,
              },
            );
          }
          return answerTurn(answer, turn);
        },
      };
    },
  };
}
