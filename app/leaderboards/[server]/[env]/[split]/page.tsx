import type { Metadata } from "next";
import { LeaderboardView } from "@/components/review/leaderboard-view";
import { decodeParam } from "@/lib/ui-server/page-lookup";

type Params = { params: Promise<{ server: string; env: string; split: string }> };

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { env, split } = await params;
  return { title: `Leaderboard ${decodeParam(env)} / ${decodeParam(split)}` };
}

export default async function LeaderboardPage({ params }: Params) {
  const p = await params;
  return (
    <LeaderboardView server={decodeParam(p.server)} env={decodeParam(p.env)} split={decodeParam(p.split)} />
  );
}
