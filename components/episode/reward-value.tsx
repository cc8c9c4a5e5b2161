// A reward as the app shows it everywhere: formatReward's text in tabular figures, an em dash
// that screen readers read as "no reward" for null, the exact value on hover when rounded.
import { formatReward, NO_REWARD, NO_REWARD_LABEL, rewardSign } from "@/lib/trajectory/reward";
import { cn } from "@/lib/ui/cn";

const TONE = {
  positive: "text-emerald-700 dark:text-emerald-400",
  negative: "text-red-700 dark:text-red-400",
  zero: "",
  none: "text-zinc-500 dark:text-zinc-400",
} as const;

export interface RewardValueProps {
  value: number | null | undefined;
  /** `+` before positive values (a step's reward); totals are unsigned. */
  signed?: boolean;
  /** Colour by sign: green above zero, red below. */
  tone?: boolean;
  className?: string;
  "data-testid"?: string;
}

/**
 * Shows a reward: `+1`, `-0.5`, `1.5e+6`, `0`, or `—` (read "no reward") for null. When the shown
 * text is rounded or in exponent form, the exact value is the element's title.
 */
export function RewardValue({
  value,
  signed = false,
  tone = false,
  className,
  "data-testid": testId,
}: RewardValueProps) {
  const toneClass = tone ? TONE[rewardSign(value)] : undefined;
  if (value === null || value === undefined) {
    return (
      <span className={cn("tabular-nums", toneClass, className)} title={NO_REWARD_LABEL} data-testid={testId}>
        <span aria-hidden="true">{NO_REWARD}</span>
        <span className="sr-only">{NO_REWARD_LABEL}</span>
      </span>
    );
  }
  const text = formatReward(value, { signed });
  // The exact value in plain digits (String gives the shortest text that reads back the same number).
  const exact = `${signed && value > 0 ? "+" : ""}${value === 0 ? "0" : String(value)}`;
  return (
    <span
      className={cn("tabular-nums", toneClass, className)}
      title={exact === text ? undefined : exact}
      data-testid={testId}
    >
      {text}
    </span>
  );
}
