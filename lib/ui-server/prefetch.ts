// Pages' data fetched on the server through the playground's relay client, as a dehydrated TanStack
// Query cache under the browser's query keys: the environment page's tools, splits and task counts
// (the HTML carries the tool cards), and an episode page's session tools (its tool form renders as
// soon as the page is hydrated, without a round trip). Bounded in time: what is not back by then the
// browser fetches, with its usual loading states.
import "server-only";
import { type DehydratedState, dehydrate, QueryClient } from "@tanstack/react-query";
import type { OrsClient } from "@/lib/ors/client";
import { getPlayground } from "@/lib/playground";
import { orsKeys } from "@/lib/ui/query-keys";
import type { SessionTools } from "@/lib/ui/use-episode";

/** How long the page waits for a server's answers before the browser takes over. */
export const PREFETCH_TIMEOUT_MS = 800;

export interface PrefetchOptions {
  /** The client to ask (default: the playground's relay client for `server`). */
  client?: OrsClient;
  timeoutMs?: number;
}

type Put = <T>(key: readonly unknown[], fetch: () => Promise<T>) => Promise<T | undefined>;

/**
 * Runs `fill` against the server's client until the deadline and dehydrates what it put in the
 * cache. Each answer that fails or misses the deadline is simply absent; never throws.
 */
async function prefetch(
  server: string,
  o: PrefetchOptions,
  fill: (put: Put, client: OrsClient, signal: AbortSignal) => Promise<unknown>,
): Promise<DehydratedState> {
  const qc = new QueryClient();
  const signal = AbortSignal.timeout(o.timeoutMs ?? PREFETCH_TIMEOUT_MS);
  // A server that ignores the abort (a hung upstream) still can't hold the page past the deadline.
  const deadline = new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
  let client: OrsClient;
  try {
    client = o.client ?? getPlayground().clientFor(server);
  } catch {
    return dehydrate(qc);
  }
  const put: Put = async (key, fetch) => {
    try {
      const data = await fetch();
      if (!signal.aborted) qc.setQueryData(key, data);
      return data;
    } catch {
      return undefined; // the browser asks again and shows the error, as without the prefetch
    }
  };
  await Promise.race([fill(put, client, signal), deadline]);
  return dehydrate(qc);
}

/** The list of environments, the env's tools, its splits and each split's task count. */
export function prefetchEnvironment(
  server: string,
  env: string,
  o: PrefetchOptions = {},
): Promise<DehydratedState> {
  return prefetch(server, o, async (put, client, signal) => {
    const [, , splits] = await Promise.all([
      put(orsKeys.envs(server), () => client.listEnvironments({ signal })),
      put(orsKeys.tools(server, env), async () => (await client.tools(env, { signal })).tools),
      put(orsKeys.splits(server, env), () => client.splits(env, { signal })),
    ]);
    await Promise.all(
      (splits ?? []).map((s) =>
        put(
          orsKeys.numTasks(server, env, s.name),
          async () => (await client.numTasks(env, s.name, { signal })).num_tasks,
        ),
      ),
    );
  });
}

/**
 * An open session's tools (`/{env}/task_tools`), as the episode page's tool panel reads them. A
 * server without task_tools is left to the browser, which falls back to `/{env}/tools` and says so.
 */
export function prefetchSessionTools(
  server: string,
  env: string,
  sid: string,
  o: PrefetchOptions = {},
): Promise<DehydratedState> {
  return prefetch(server, o, (put, client, signal) =>
    put(
      orsKeys.taskTools(server, env, sid),
      async (): Promise<SessionTools> => ({
        tools: (await client.taskTools(env, sid, { signal })).tools,
        source: "task_tools",
      }),
    ),
  );
}
