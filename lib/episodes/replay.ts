// Fork and replay of a recorded trajectory, run server-side through the relay (so the new
// episode is recorded like any other): a new session on the same task, the recorded actions
// re-sent in order, each replayed step compared with the original (lib/episodes/diff.ts).
import "server-only";
import { diffTrajectories, markDiffers, replayMark, type TrajectoryDiff } from "@/lib/episodes/diff";
import { type ForkResult, pendingStep } from "@/lib/episodes/model";
import type { ReplayMark, Trajectory, TrajectoryStep } from "@/lib/episodes/schema";
import { type Block, type JsonObject, readSseFrames, runToolOutputSchema } from "@/lib/ors/protocol";
import type { TrajectoryStore } from "./store/sqlite";

export class ReplayError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

interface Session {
  base: string;
  sid: string;
  env: string;
}

async function detailOf(res: Response): Promise<string> {
  const text = await res.text().catch(() => "");
  try {
    const d = (JSON.parse(text) as { detail?: unknown }).detail;
    return typeof d === "string" ? d : JSON.stringify(d);
  } catch {
    return text.slice(0, 200) || `HTTP ${res.status}`;
  }
}

async function post(base: string, path: string, body: unknown, sid?: string): Promise<Response> {
  const headers: Record<string, string> = { "Content-Type": "application/json", Accept: "application/json" };
  if (sid) headers["X-Session-ID"] = sid;
  return fetch(`${base}${path}`, { method: "POST", headers, body: JSON.stringify(body), redirect: "manual" });
}

/** Opens a session on the trajectory's task through the relay and fetches its prompt. */
async function open(t: Trajectory, relayBase: string, secrets?: Record<string, string>): Promise<Session> {
  if (!t.task)
    throw new ReplayError(400, "the trajectory's task is unknown (recorded mid-episode): cannot re-run it");
  const base = `${relayBase}/api/servers/${encodeURIComponent(t.server)}`;
  const cs = await post(base, "/create_session", {});
  if (!cs.ok) throw new ReplayError(502, `create_session on "${t.server}" failed: ${await detailOf(cs)}`);
  const { sid } = (await cs.json()) as { sid: string };
  const body: JsonObject = { ...t.task };
  if (t.env) body.env_name = t.env;
  if (secrets && Object.keys(secrets).length) body.secrets = secrets;
  const cr = await post(base, "/create", body, sid);
  if (!cr.ok) throw new ReplayError(502, `create on "${t.server}" failed: ${await detailOf(cr)}`);
  let env = t.env;
  if (!env) {
    const envs = await fetch(`${base}/list_environments`).then((r) => r.json() as Promise<string[]>);
    env = envs[0];
  }
  const pr = await fetch(`${base}/${encodeURIComponent(env)}/prompt`, { headers: { "X-Session-ID": sid } });
  if (!pr.ok) throw new ReplayError(502, `prompt failed: ${await detailOf(pr)}`);
  return { base, sid, env };
}

/** Re-sends one recorded action; returns the step as replayed. */
async function call(s: Session, original: TrajectoryStep): Promise<TrajectoryStep> {
  const started = Date.now();
  const step: TrajectoryStep = {
    ...pendingStep({
      index: original.index,
      tool: original.tool,
      input: original.input,
      task_id: null,
      started_at: started,
    }),
    ok: false,
    replay: null,
  };
  const res = await fetch(`${s.base}/${encodeURIComponent(s.env)}/call`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "text/event-stream", "X-Session-ID": s.sid },
    body: JSON.stringify({ name: original.tool, input: original.input }),
  });
  if (!res.ok || !res.body) {
    step.error = `HTTP ${res.status}: ${await detailOf(res)}`;
  } else {
    let data = "";
    for await (const f of readSseFrames(res.body)) {
      if (f.kind !== "event") continue;
      if (f.event === "task_id") step.task_id = f.data;
      else if (f.event === "chunk") data += f.data;
      else if (f.event === "end") {
        data += f.data;
        const r = runToolOutputSchema.safeParse(JSON.parse(data));
        if (!r.success) step.error = "the server sent an invalid RunToolOutput";
        else if (r.data.ok) {
          step.ok = true;
          step.blocks = r.data.output.blocks as Block[];
          step.reward = r.data.output.reward ?? null;
          step.finished = r.data.output.finished ?? false;
          step.metadata = r.data.output.metadata ?? null;
        } else step.error = r.data.error;
        break;
      } else if (f.event === "error") {
        step.error = f.data;
        break;
      }
    }
  }
  step.ended_at = Date.now();
  step.latency_ms = step.ended_at - started;
  return step;
}

/** Waits (bounded) until the recorder has written the session's trajectory with `n` completed steps. */
async function recorded(store: TrajectoryStore, server: string, sid: string, n: number): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const s = store.findBySession(server, sid);
    if (s) {
      const t = store.get(s.id);
      if (t && t.steps.length >= n && t.steps.slice(0, n).every((x) => x.ok != null)) return s.id;
    }
    if (Date.now() > deadline) {
      throw new ReplayError(500, "the replayed episode was not recorded: is the recorder running?");
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Forks at step `n`: a new live session on the same task with actions 1..n replayed. */
export async function forkTrajectory(
  store: TrajectoryStore,
  t: Trajectory,
  n: number,
  relayBase: string,
  secrets?: Record<string, string>,
): Promise<ForkResult> {
  if (!Number.isInteger(n) || n < 0 || n > t.steps.length) {
    throw new ReplayError(400, `step must be an integer between 0 and ${t.steps.length}`);
  }
  const s = await open(t, relayBase, secrets);
  const marks: ReplayMark[] = [];
  for (const original of t.steps.slice(0, n)) {
    const replayed = await call(s, original);
    marks.push(replayMark(original, replayed, t.id));
    if (!replayed.ok && replayed.error?.startsWith("HTTP")) break;
  }
  const id = await recorded(store, t.server, s.sid, marks.length);
  store.setOrigin(id, { kind: "fork", from: t.id, step: n });
  marks.forEach((m, i) => {
    store.setStepReplay(id, i + 1, m);
  });
  return {
    server: t.server,
    env: s.env,
    sid: s.sid,
    trajectory_id: id,
    step: n,
    marks,
    differing: marks.filter(markDiffers).map((m) => m.step),
  };
}

export interface ReplayResult {
  trajectory_id: string;
  diff: Omit<TrajectoryDiff, "steps"> & { steps: { index: number; fields: string[] }[] };
}

/** Replays every action against the current environment; closes the session; returns the diff. */
export async function replayTrajectory(
  store: TrajectoryStore,
  t: Trajectory,
  relayBase: string,
  secrets?: Record<string, string>,
): Promise<ReplayResult> {
  const s = await open(t, relayBase, secrets);
  let count = 0;
  const marks: ReplayMark[] = [];
  for (const original of t.steps) {
    const replayed = await call(s, original);
    count++;
    marks.push(replayMark(original, replayed, t.id));
    if (!replayed.ok && replayed.error?.startsWith("HTTP")) break;
  }
  const id = await recorded(store, t.server, s.sid, count);
  store.setOrigin(id, { kind: "replay", from: t.id });
  marks.forEach((m, i) => {
    store.setStepReplay(id, i + 1, m);
  });
  // Close the session (a finished episode keeps `finished`).
  await post(s.base, "/delete", {}, s.sid).catch(() => undefined);
  const replay = store.get(id);
  if (!replay) throw new ReplayError(500, "the replayed trajectory vanished");
  const diff = diffTrajectories(t, replay);
  return {
    trajectory_id: id,
    diff: { ...diff, steps: diff.steps.map((d) => ({ index: d.index, fields: d.fields })) },
  };
}
