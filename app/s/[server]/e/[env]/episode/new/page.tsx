import type { Metadata } from "next";
import { NewEpisode } from "@/components/episode/new-episode";
import { decodeParam } from "@/lib/ui/server-lookup";

type Props = {
  params: Promise<{ server: string; env: string }>;
  searchParams: Promise<{ split?: string; task?: string; spec?: string }>;
};

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { env } = await params;
  return { title: `New ${decodeParam(env)} episode` };
}

export default async function NewEpisodePage({ params, searchParams }: Props) {
  const p = await params;
  const q = await searchParams;
  const index = q.task !== undefined && /^\d+$/.test(q.task) ? Number(q.task) : null;
  return (
    <NewEpisode
      server={decodeParam(p.server)}
      env={decodeParam(p.env)}
      split={q.split ?? null}
      index={index}
      fromSpec={q.spec === "1" || (q.split === undefined && q.task === undefined)}
    />
  );
}
