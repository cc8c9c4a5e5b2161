// GET /api/trajectories/<id>/events: SSE live feed of one trajectory. First `event: snapshot`
// (the whole trajectory, in-flight frames included, the last activity, which steps are passing
// through the relay now), then `step`, `frame`, `prompt`, `reprompt`, `activity` and `ended` events
// as they happen. The stream closes after `ended` (at once for an ended trajectory), except for a
// finished one, whose session may still take calls (recorded as after the end).

import { noTrajectory, withInflight } from "@/lib/episodes/http";
import { liveSseResponse } from "@/lib/episodes/live-sse";
import { route } from "@/lib/http";
import { getPlayground } from "@/lib/playground";
import type { SnapshotEvent } from "@/lib/trajectory/feed";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route<{ id: string }>(async (req, { id }) => {
  const { store: s, live, recorder } = getPlayground();
  const summary = await s.summary(id);
  if (!summary) throw noTrajectory(id);
  return liveSseResponse(req, live, id, {
    first: async () => {
      // Changes recorded before the snapshot is read are in it; later ones follow as events.
      await recorder.idle();
      const [t, now] = await Promise.all([s.get(id), s.summary(id)]);
      if (!t || !now) return [];
      const snapshot: SnapshotEvent = {
        type: "snapshot",
        id,
        trajectory: withInflight(t, recorder),
        last_activity_at: now.last_activity_at,
        inflight: await recorder.inflightIndices(id),
      };
      return [{ event: "snapshot", data: snapshot }];
    },
    // A finished episode's session lives on: calls made after the end are still recorded and sent.
    closeOn: (e) => e.type === "ended" && e.end_reason !== "finished",
    closeAfterFirst: summary.end_reason != null && summary.end_reason !== "finished",
  });
});
