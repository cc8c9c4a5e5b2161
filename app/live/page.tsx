import type { Metadata } from "next";
import { LiveList } from "@/components/trajectories/live-list";

export const metadata: Metadata = { title: "Live episodes" };

export default function LivePage() {
  return <LiveList />;
}
