"use client";

// App-wide client providers: one TanStack QueryClient per browser session (per request on the
// server, so no data leaks between users), created lazily in state so re-renders keep it.
import { isServer, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";

function shouldRetry(failureCount: number, error: unknown): boolean {
  if (failureCount >= 2) return false;
  const e = error as { status?: number; kind?: string } | null;
  // Client errors (unknown env, bad split, 4xx) and a server that is not ORS won't fix themselves.
  if (e && typeof e.status === "number" && e.status >= 400 && e.status < 500) return false;
  if (e?.kind === "not-ors") return false;
  return true;
}

function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 30_000, retry: shouldRetry, refetchOnWindowFocus: false },
    },
  });
}

let browserQueryClient: QueryClient | undefined;

function getQueryClient(): QueryClient {
  if (isServer) return makeQueryClient();
  browserQueryClient ??= makeQueryClient();
  return browserQueryClient;
}

export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(getQueryClient);
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
