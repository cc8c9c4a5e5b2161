import type { Metadata } from "next";
import { ReviewHome } from "@/components/review/review-home";

export const metadata: Metadata = { title: "Review" };

export default function ReviewPage() {
  return <ReviewHome />;
}
