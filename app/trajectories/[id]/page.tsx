import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { type PrerenderedBlocks, prerenderBlocks } from "@/components/episode/prerender";
import { TrajectoryView } from "@/components/trajectories/trajectory-view";
import { getPlayground } from "@/lib/playground";
import { decodeParam } from "@/lib/ui-server/page-lookup";

export const metadata: Metadata = { title: "Trajectory" };
export const dynamic = "force-dynamic";

export default async function TrajectoryPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ step?: string }>;
}) {
  const id = decodeParam((await params).id);
  const { step } = await searchParams;
  const { store } = getPlayground();
  // An unknown trajectory is a real 404 (not a page that says so with a 200).
  const summary = await store.summary(id);
  if (!summary) notFound();
  // With no steps, the prompt is open at once: its Markdown is laid out here (prerender.tsx).
  let prompt: PrerenderedBlocks | null = null;
  if (summary.num_steps === 0) {
    const t = await store.get(id);
    if (t?.prompt) prompt = prerenderBlocks(t.prompt);
  }
  const n = Number(step);
  return (
    <TrajectoryView
      key={id}
      id={id}
      initialStep={Number.isInteger(n) && n > 0 ? n : null}
      initialPrompt={prompt}
    />
  );
}
