import type { Metadata } from "next";
import { NewRunForm } from "@/components/runs/new-run-form";

export const metadata: Metadata = { title: "Start a run" };

type Search = Promise<{ server?: string; env?: string; split?: string }>;

export default async function NewRunPage({ searchParams }: { searchParams: Search }) {
  const { server, env, split } = await searchParams;
  const one = (v: unknown) => (typeof v === "string" && v.length <= 256 ? v : undefined);
  const initial = { server: one(server), env: one(env), split: one(split) };
  // Keyed by what the URL asks, so "Start a run" from another environment starts a fresh form.
  return <NewRunForm key={`${initial.server}/${initial.env}/${initial.split}`} initial={initial} />;
}
