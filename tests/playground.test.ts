// The composition root's exit path (lib/playground.ts `settleBeforeExit`): a second Ctrl-C or SIGTERM
// while the server entries stop waits until what the recorder has taken is written, on a real SQLite
// file, rather than exiting with it in memory.
import { afterAll, expect, it } from "vitest";
import { initPlayground, settleBeforeExit } from "@/lib/playground";
import { tempDir } from "./episodes/helpers";

process.env.PLAYGROUND_DATA_DIR = tempDir("settle-");
const pg = initPlayground({});
afterAll(() => pg.close());

it("waits for the recorder to write what it holds", async () => {
  await pg.ready;
  const at = Date.now();
  const sids = Array.from({ length: 200 }, (_, i) => `settle-${i}`);
  // Handed to the recorder and not waited for, as a process being stopped leaves them.
  for (const sid of sids) {
    void pg.recorder.handle({
      type: "episode_created",
      server: "py",
      sid,
      env: "math",
      task: { split: "train", index: 1 },
      at,
    });
    void pg.recorder.handle({ type: "session_deleted", server: "py", sid, endpoint: "delete", at: at + 1 });
  }
  expect(await settleBeforeExit(10_000)).toBe(true);
  const { items } = await pg.store.list({ server: "py", limit: 1000 });
  expect(items.map((t) => [t.sid, t.end_reason]).sort()).toEqual(sids.map((s) => [s, "user_closed"]).sort());
});
