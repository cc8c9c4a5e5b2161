import type { Metadata } from "next";
import { LeaderboardsIndex } from "@/components/review/leaderboards-index";

export const metadata: Metadata = { title: "Leaderboards" };

export default function LeaderboardsPage() {
  return <LeaderboardsIndex />;
}
