import type { Metadata } from "next";
import { NewEpisode, type SpecSource } from "@/components/episode/new-episode";
import { getPlayground } from "@/lib/playground";
import { decodeParam } from "@/lib/ui-server/page-lookup";

type Props = {
  params: Promise<{ server: string; env: string }>;
  searchParams: Promise<{ split?: string; task?: string; spec?: string; task_spec?: string; from?: string }>;
};

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { env } = await params;
  return { title: `New ${decodeParam(env)} episode` };
}

/**
 * The task_spec a restart link names (lib/routes.ts): inline (`task_spec`), or the one a
 * recorded episode ran (`from`, read from the store here, so the link works in any tab).
 */
async function specSource(q: Awaited<Props["searchParams"]>): Promise<SpecSource | null> {
  if (typeof q.task_spec === "string")
    return { key: `inline:${q.task_spec}`, text: q.task_spec, error: null };
  if (typeof q.from !== "string") return null;
  const t = await getPlayground().store.get(q.from);
  if (!t)
    return {
      key: `from:${q.from}`,
      text: null,
      error: `No recorded episode "${q.from}": its task_spec is unknown.`,
    };
  if (!t.task || !("task_spec" in t.task))
    return { key: `from:${q.from}`, text: null, error: `Episode "${q.from}" did not run on a task_spec.` };
  return { key: `from:${q.from}`, text: JSON.stringify(t.task.task_spec, null, 2), error: null };
}

export default async function NewEpisodePage({ params, searchParams }: Props) {
  const p = await params;
  const q = await searchParams;
  const index = q.task !== undefined && /^\d+$/.test(q.task) ? Number(q.task) : null;
  const spec = await specSource(q);
  return (
    <NewEpisode
      server={decodeParam(p.server)}
      env={decodeParam(p.env)}
      split={q.split ?? null}
      index={index}
      fromSpec={spec !== null || q.spec === "1" || (q.split === undefined && q.task === undefined)}
      specSource={spec}
    />
  );
}
