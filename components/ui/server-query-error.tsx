"use client";
// A failed load from an ORS server (its environments, an environment's tools, splits or tasks): the
// error with the server's name, address and environment for its hints, and a retry.
import { useServerInfo } from "@/lib/ui/queries";
import { ErrorPanel } from "./error-panel";

export function ServerQueryError({
  query,
  server,
  env,
}: {
  query: { error: unknown; refetch: () => unknown };
  server: string;
  env?: string;
}) {
  const info = useServerInfo(server);
  return (
    <ErrorPanel
      error={query.error}
      context={{ server, serverUrl: info?.url, env }}
      onRetry={() => void query.refetch()}
    />
  );
}
