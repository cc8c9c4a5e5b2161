import type { Metadata } from "next";
import { CompareView } from "@/components/trajectories/compare-view";

export const metadata: Metadata = { title: "Compare trajectories" };

export default async function ComparePage({
  searchParams,
}: {
  searchParams: Promise<{ a?: string; b?: string }>;
}) {
  const { a = "", b = "" } = await searchParams;
  return <CompareView key={`${a}|${b}`} a={a} b={b} />;
}
