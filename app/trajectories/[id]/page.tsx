import type { Metadata } from "next";
import { TrajectoryView } from "@/components/trajectories/trajectory-view";

export const metadata: Metadata = { title: "Trajectory" };

export default async function TrajectoryPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ step?: string }>;
}) {
  const { id } = await params;
  const { step } = await searchParams;
  const n = Number(step);
  return (
    <TrajectoryView
      key={id}
      id={decodeURIComponent(id)}
      initialStep={Number.isInteger(n) && n > 0 ? n : null}
    />
  );
}
