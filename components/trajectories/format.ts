// Small display helpers of the trajectory views.
import type { BadgeTone } from "@/components/ui/badge";
import { END_REASON_LABEL as SHORT_END_REASON_LABEL } from "@/lib/trajectory/end-reason";
import type { EndReason } from "@/lib/trajectory/schema";

/** The end reasons' labels (lib/trajectory/end-reason.ts); the views have room to say who closed it. */
export const END_REASON_LABEL: Record<EndReason | "running", string> = {
  ...SHORT_END_REASON_LABEL,
  user_closed: "Closed by user",
};

export function endReasonTone(r: EndReason | null): BadgeTone {
  if (r == null) return "sky";
  if (r === "finished") return "green";
  if (r === "user_closed" || r === "cancelled" || r === "policy_stopped") return "neutral";
  return r === "timeout" || r === "interrupted" ? "amber" : "red";
}

export function fmtMs(ms: number | null | undefined): string {
  if (ms == null) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function fmtTime(at: number | null | undefined): string {
  if (at == null) return "—";
  return new Date(at).toLocaleString(undefined, { dateStyle: "short", timeStyle: "medium" });
}
