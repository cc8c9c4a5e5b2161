// Recorded episodes replayed against a server by three clients, each as it really reads answers:
// this repository's typed client, the reference Python client (its requests, and its reading of SSE
// and results as lib/conformance/reference-client.ts models it), and the OpenReward platform's
// client (tests/fixtures/openreward-client). Each gives what it got in one shape, to compare with
// what was recorded.
import { Probe } from "@/lib/conformance/probe";
import {
  readSseAsReferenceClient,
  referenceCallResult,
  referenceCreateSession,
} from "@/lib/conformance/reference-client";
import { createOrsClient } from "@/lib/ors/client";
import type { Block, RunToolOutput } from "@/lib/ors/protocol";
import type { Trajectory } from "@/lib/trajectory/schema";
import { createOpenRewardClient, ToolCallError } from "../../fixtures/openreward-client/client";

/** What an episode showed: the prompt's text, then each call's outcome. */
export interface Seen {
  prompt: string[];
  steps: { ok: boolean; reward: number | null; finished: boolean; text: string[]; error: string | null }[];
}

const texts = (blocks: readonly { type: string; text?: string; data?: string }[]) =>
  blocks.map((b) => (b.type === "text" ? (b.text ?? "") : `[image ${(b.data ?? "").length}]`));

function stepOf(r: RunToolOutput): Seen["steps"][number] {
  return r.ok
    ? {
        ok: true,
        reward: r.output.reward ?? null,
        finished: r.output.finished,
        text: texts(r.output.blocks),
        error: null,
      }
    : { ok: false, reward: null, finished: false, text: [], error: r.error };
}

/** What the recording shows, in the same shape (the steps that ended). */
export function recorded(t: Trajectory): Seen {
  return {
    prompt: texts(t.prompt ?? []),
    steps: t.steps
      .filter((s) => s.ok !== null)
      .map((s) =>
        s.ok
          ? { ok: true, reward: s.reward, finished: s.finished, text: texts(s.blocks), error: null }
          : { ok: false, reward: null, finished: false, text: [], error: s.error },
      ),
  };
}

function taskOf(t: Trajectory): { split: string; index: number } {
  if (!t.task || !("split" in t.task)) throw new Error(`trajectory ${t.id} has no split and index`);
  return t.task;
}

/** The episode's calls with this repository's client. */
export async function replayWithOrsClient(url: string, t: Trajectory): Promise<Seen> {
  const ors = createOrsClient({ baseUrl: url });
  const { sid } = await ors.createSession();
  try {
    await ors.create(sid, { env_name: t.env!, ...taskOf(t) });
    const prompt = await ors.prompt(t.env!, sid);
    const steps: Seen["steps"] = [];
    for (const s of t.steps.filter((x) => x.ok !== null))
      steps.push(stepOf(await ors.callTool(t.env!, sid, { name: s.tool, input: s.input })));
    return { prompt: texts(prompt), steps };
  } finally {
    await ors.delete(sid).catch(() => {});
  }
}

/** The episode's calls as the reference Python client makes and reads them. */
export async function replayAsReferenceClient(url: string, t: Trajectory): Promise<Seen> {
  const probe = new Probe({
    baseUrl: url,
    fetch,
    requestTimeoutMs: 30_000,
    signal: new AbortController().signal,
    maxBodyBytes: 64 << 20,
  });
  const created = referenceCreateSession(
    await probe.send({ method: "POST", path: "/create_session", accept: "text/event-stream" }),
  );
  if (!created.ok) throw new Error(`the reference client cannot start a session: ${created.failure}`);
  const sid = created.sid;
  try {
    const c = await probe.send({
      method: "POST",
      path: "/create",
      sid,
      json: { env_name: t.env, ...taskOf(t) },
    });
    if (c.status !== 200) throw new Error(`/create: HTTP ${c.status} ${c.text}`);
    const p = await probe.send({ method: "GET", path: `/${t.env}/prompt`, sid });
    const prompt = texts(JSON.parse(p.text) as Block[]);
    const steps: Seen["steps"] = [];
    for (const s of t.steps.filter((x) => x.ok !== null)) {
      const a = await probe.send({
        method: "POST",
        path: `/${t.env}/call`,
        sid,
        accept: "text/event-stream",
        json: { name: s.tool, input: s.input },
      });
      const r = referenceCallResult(readSseAsReferenceClient(a.text));
      if (!r.ok) throw new Error(`the reference client fails on step ${s.index}: ${r.failure}`);
      steps.push(stepOf(r.value as RunToolOutput));
    }
    return { prompt, steps };
  } finally {
    await probe.send({ method: "POST", path: "/delete", sid }).catch(() => {});
  }
}

/** The episode's calls with the OpenReward platform's client (bare paths, X-Deployment). */
export async function replayWithOpenRewardClient(url: string, t: Trajectory): Promise<Seen> {
  const client = createOpenRewardClient({ baseUrl: url, waitScale: 0.05 });
  const session = client.environments.get(t.env!).session(taskOf(t));
  await session.open();
  try {
    const prompt = texts(await session.getPrompt());
    const steps: Seen["steps"] = [];
    for (const s of t.steps.filter((x) => x.ok !== null)) {
      try {
        const out = await session.callTool(s.tool, s.input);
        steps.push({
          ok: true,
          reward: out.reward,
          finished: out.finished,
          text: texts(out.blocks),
          error: null,
        });
      } catch (e) {
        if (!(e instanceof ToolCallError)) throw e;
        steps.push({ ok: false, reward: null, finished: false, text: [], error: e.message });
      }
    }
    return { prompt, steps };
  } finally {
    await session.close();
  }
}
