// One tool call in a new session on task 0 of `env`'s train split, every event of its stream kept:
// what the tests of streaming (through nginx, through a dropping proxy) look at.
import type { CallEvent, OrsClient } from "@/lib/ors/client";
import type { RunToolOutput, ToolCall } from "@/lib/ors/protocol";

export async function callInNewSession(
  ors: OrsClient,
  env: string,
  call: ToolCall,
): Promise<{ sid: string; out: RunToolOutput; events: CallEvent[] }> {
  const { sid } = await ors.createSession();
  await ors.create(sid, { env_name: env, split: "train", index: 0 });
  const events: CallEvent[] = [];
  const out = await ors.callTool(env, sid, call, { onEvent: (e) => events.push(e) });
  return { sid, out, events };
}
