import type { Metadata } from "next";
import { ReviewQueueView } from "@/components/review/review-queue";

type Params = { params: Promise<{ id: string }>; searchParams: Promise<{ reviewer?: string; at?: string }> };

export const metadata: Metadata = { title: "Review" };

export default async function ReviewQueuePage({ params, searchParams }: Params) {
  const { id } = await params;
  const { reviewer, at } = await searchParams;
  const n = Number(at);
  return (
    <ReviewQueueView
      key={`${id} ${reviewer ?? ""}`}
      queueId={decodeURIComponent(id)}
      reviewer={reviewer?.trim() || null}
      at={at !== undefined && Number.isInteger(n) && n >= 0 ? n : null}
    />
  );
}
