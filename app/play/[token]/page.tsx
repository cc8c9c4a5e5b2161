import type { Metadata } from "next";
import { PlayView } from "@/components/review/play-view";
import { getPlayground } from "@/lib/playground";
import { openShare } from "@/lib/review/share";

type Params = { params: Promise<{ token: string }> };

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Play", referrer: "no-referrer" };

/**
 * A share link's page, for someone without the access token (the request policy lets `/play/<token>`
 * through; the link is checked here): its tasks to play, or why it opens nothing.
 */
export default async function PlayPage({ params }: Params) {
  const { token } = await params;
  try {
    const share = await openShare(getPlayground().store, token);
    return <PlayView token={token} env={share.env} split={share.split} total={share.tasks.length} />;
  } catch (err) {
    return (
      <main className="mx-auto max-w-xl px-4 py-16">
        <h1 className="text-xl font-semibold">This link opens nothing</h1>
        <p role="alert" className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">
          {(err as Error).message}. Ask whoever sent it for a new one.
        </p>
      </main>
    );
  }
}
