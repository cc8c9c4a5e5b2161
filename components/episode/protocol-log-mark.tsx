// The mark of a step that replays a call of the protocol log ("Replay" or "Edit and replay" there):
// which logged request it sent again, and whether its input was edited first.
import { Badge } from "@/components/ui/badge";
import type { TrajectoryStep } from "@/lib/trajectory/schema";
import { replayedLabel, replayOriginOf } from "@/lib/ui/protocol-log";

export function ReplayedMark({ step }: { step: TrajectoryStep }) {
  const origin = replayOriginOf(step);
  if (!origin) return null;
  return (
    <Badge
      tone="sky"
      title={`Sent again from the protocol log: request #${origin.exchange}${origin.edited ? ", its input edited" : ""}`}
    >
      {replayedLabel(origin)}
    </Badge>
  );
}
