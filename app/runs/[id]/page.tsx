import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { RunView } from "@/components/runs/run-view";
import { getPlayground } from "@/lib/playground";
import { decodeParam } from "@/lib/ui-server/page-lookup";

type Params = { params: Promise<{ id: string }>; searchParams: Promise<{ task?: string }> };

export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { id } = await params;
  return { title: `Run ${decodeParam(id).slice(0, 8)}` };
}

export default async function RunPage({ params, searchParams }: Params) {
  const id = decodeParam((await params).id);
  const { task } = await searchParams;
  // An unknown run is a real 404 (not a page that says so with a 200).
  if (!(await getPlayground().store.getRun(id))) notFound();
  const n = Number(task);
  return <RunView key={id} id={id} task={task !== undefined && Number.isInteger(n) && n >= 0 ? n : null} />;
}
