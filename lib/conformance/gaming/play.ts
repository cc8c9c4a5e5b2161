// Plays the probes' attempts (docs/check.md "Can the reward be gamed?"): each a session on its task —
// `/create`, the prompt, the attempt's calls — whose probe calls' rewards are added up as the attempt
// counts them (before the episode's end, or after it), then deleted. With the typed client of any
// server: the CLI plays them at the server's URL, and replays a finding's through the relay so it
// is recorded. Isomorphic.
import { isOrsClientError, type OrsClient } from "@/lib/ors/client";
import type { Block, RunToolOutput } from "@/lib/ors/protocol";
import type { Attempt, PlannedCall } from "./plans";

export interface PlayedAttempt {
  attempt: Attempt;
  /** The calls made (those after the end are left out of a `before-end` attempt). */
  calls: PlannedCall[];
  /** What the probe's calls earned as the attempt counts them. */
  gain: number;
  /** The session, when one was made (for finding its recording). */
  sid: string | null;
  /** Why the attempt could not be played (a session that could not start), or null. */
  error: string | null;
}

const text = (blocks: readonly Block[]) =>
  blocks
    .filter((b) => b.type === "text")
    .map((b) => (b as { text: string }).text)
    .join("\n\n");

/** A call the environment answered with a failure (a tool error, an invalid input): a result, not a lost episode. */
function failedCall(err: unknown): RunToolOutput | null {
  if (!isOrsClientError(err)) return null;
  if (
    (err.kind === "stream" && err.status !== 0) ||
    (err.kind === "http" && err.status >= 400 && err.status < 500 && err.status !== 410)
  )
    return { ok: false, error: err.detail };
  return null;
}

/** Plays one attempt; null when the probe has nothing to try once the prompt is known. */
export async function playAttempt(
  ors: OrsClient,
  at: { env: string; split: string },
  a: Attempt,
  signal?: AbortSignal,
): Promise<PlayedAttempt | null> {
  let sid: string | null = null;
  try {
    sid = (await ors.createSession({ signal })).sid;
    await ors.create(sid, { env_name: at.env, split: at.split, index: a.task }, { signal });
    const calls = a.calls(text(await ors.prompt(at.env, sid, { signal })));
    if (!calls) return null;
    const made: PlannedCall[] = [];
    let ended = false;
    let gain = 0;
    for (const c of calls) {
      if (ended && a.counts === "before-end") break;
      let r: RunToolOutput;
      try {
        r = await ors.callTool(at.env, sid, { name: c.tool, input: c.input }, { signal });
      } catch (err) {
        const failed = failedCall(err);
        if (!failed) throw err;
        r = failed;
      }
      made.push(c);
      const reward = r.ok ? (r.output.reward ?? 0) : 0;
      if (c.role === "probe" && (a.counts === "before-end" ? !ended : ended)) gain += reward;
      if (r.ok && r.output.finished) ended = true;
    }
    return { attempt: a, calls: made, gain, sid, error: null };
  } catch (err) {
    if (signal?.aborted) throw err;
    return {
      attempt: a,
      calls: [],
      gain: 0,
      sid,
      error: isOrsClientError(err) ? err.detail : (err as Error).message,
    };
  } finally {
    if (sid) await ors.delete(sid).catch(() => {});
  }
}

/** Plays every attempt, `concurrency` at a time; the played ones, in the attempts' order. */
export async function playAttempts(
  ors: OrsClient,
  at: { env: string; split: string },
  attempts: readonly Attempt[],
  o: { concurrency: number; signal?: AbortSignal; onPlayed?: (done: number, total: number) => void },
): Promise<PlayedAttempt[]> {
  const out: (PlayedAttempt | null)[] = new Array(attempts.length).fill(null);
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: Math.min(o.concurrency, attempts.length) }, async () => {
      while (next < attempts.length && !o.signal?.aborted) {
        const i = next++;
        out[i] = await playAttempt(ors, at, attempts[i]!, o.signal).catch(() => null);
        o.onPlayed?.(++done, attempts.length);
      }
    }),
  );
  return out.filter((p): p is PlayedAttempt => p !== null);
}
