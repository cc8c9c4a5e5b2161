import type { Metadata } from "next";
import { RunView } from "@/components/runs/run-view";

type Params = { params: Promise<{ id: string }>; searchParams: Promise<{ task?: string }> };

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { id } = await params;
  return { title: `Run ${decodeURIComponent(id).slice(0, 8)}` };
}

export default async function RunPage({ params, searchParams }: Params) {
  const { id } = await params;
  const { task } = await searchParams;
  const n = Number(task);
  return (
    <RunView
      key={id}
      id={decodeURIComponent(id)}
      task={task !== undefined && Number.isInteger(n) && n >= 0 ? n : null}
    />
  );
}
