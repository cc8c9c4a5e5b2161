import type { Metadata } from "next";
import { AgreementView } from "@/components/review/agreement-view";

export const metadata: Metadata = { title: "Agreement" };

export default async function AgreementPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <AgreementView queueId={decodeURIComponent(id)} />;
}
