// A run's status as a badge (running ones pulse), and the tone each status reads in.
import { Radio } from "lucide-react";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import type { RunStatus } from "@/lib/store/types";
import { RUN_STATUS_LABEL } from "@/lib/ui/run-format";

const TONE: Record<RunStatus, BadgeTone> = {
  queued: "neutral",
  running: "sky",
  done: "green",
  cancelled: "neutral",
  interrupted: "amber",
  failed: "red",
};

export function RunStatusBadge({ status, className }: { status: RunStatus; className?: string }) {
  return (
    <Badge tone={TONE[status]} className={className} aria-label={`Status: ${RUN_STATUS_LABEL[status]}`}>
      {status === "running" && <Radio aria-hidden="true" className="size-3 animate-pulse" />}
      {RUN_STATUS_LABEL[status]}
    </Badge>
  );
}
