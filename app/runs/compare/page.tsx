import type { Metadata } from "next";
import { CompareRunsView } from "@/components/runs/compare-runs-view";

export const metadata: Metadata = { title: "Compare runs" };

export default async function CompareRunsPage({
  searchParams,
}: {
  searchParams: Promise<{ a?: string; b?: string }>;
}) {
  const { a, b } = await searchParams;
  const one = (v: unknown) => (typeof v === "string" ? v : "");
  return <CompareRunsView key={`${one(a)}/${one(b)}`} a={one(a)} b={one(b)} />;
}
