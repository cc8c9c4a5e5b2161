import type { Metadata } from "next";
import { EpisodeView } from "@/components/episode/episode-view";
import { decodeParam } from "@/lib/ui/server-lookup";

type Params = { params: Promise<{ server: string; env: string; sid: string }> };

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { env, sid } = await params;
  return { title: `${decodeParam(env)} episode ${decodeParam(sid).slice(0, 8)}` };
}

export default async function EpisodePage({ params }: Params) {
  const p = await params;
  return <EpisodeView server={decodeParam(p.server)} env={decodeParam(p.env)} sid={decodeParam(p.sid)} />;
}
