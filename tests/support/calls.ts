// A tool call with every event of its stream kept, in a session of the caller's or a new one on task 0
// of `env`'s train split: what the tests of streaming (through nginx, the relay, a dropping proxy) look at.
import type { CallEvent, OrsClient } from "@/lib/ors/client";
import type { RunToolOutput, ToolCall } from "@/lib/ors/protocol";

export async function callInNewSession(
  ors: OrsClient,
  env: string,
  call: ToolCall,
): Promise<{ sid: string; out: RunToolOutput; events: CallEvent[] }> {
  const { sid } = await ors.createSession();
  await ors.create(sid, { env_name: env, split: "train", index: 0 });
  return { sid, ...(await callWithEvents(ors, env, sid, call)) };
}

export async function callWithEvents(
  ors: OrsClient,
  env: string,
  sid: string,
  call: ToolCall,
): Promise<{ out: RunToolOutput; events: CallEvent[] }> {
  const events: CallEvent[] = [];
  const out = await ors.callTool(env, sid, call, { onEvent: (e) => events.push(e) });
  return { out, events };
}
