import type { Metadata } from "next";
import { Suspense } from "react";
import { TrajectoryList } from "@/components/trajectories/trajectory-list";

export const metadata: Metadata = { title: "Trajectories" };

export default function TrajectoriesPage() {
  return (
    <Suspense>
      <TrajectoryList />
    </Suspense>
  );
}
