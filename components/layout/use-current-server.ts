"use client";

import { useQuery } from "@tanstack/react-query";
import { useParams, usePathname } from "next/navigation";
import { runQuery } from "@/lib/ui/run-queries";
import { trajectoryQuery } from "@/lib/ui/trajectory-queries";

function decode(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * The server of the page: the one named in the URL (`/s/<server>/...`); on a trajectory's page
 * (`/trajectories/<id>`) the server that trajectory was recorded on, on a run's page (`/runs/<id>`)
 * the server it plays on (each from what the page reads anyway: one request); else `local`.
 * `pending` while that server is not known yet.
 */
export function useCurrentServer(): { name: string; fromUrl: boolean; pending: boolean } {
  const params = useParams<{ server?: string; id?: string }>();
  const pathname = usePathname() ?? "";
  const raw = params?.server;
  const id = typeof raw !== "string" && typeof params?.id === "string" ? decode(params.id) : null;
  const trajectoryId = id !== null && /^\/trajectories\/[^/]+$/.test(pathname) ? id : null;
  const runId = id !== null && /^\/runs\/[^/]+$/.test(pathname) ? id : null;
  const recorded = useQuery({
    ...trajectoryQuery(trajectoryId ?? ""),
    select: (t) => t.server,
    enabled: trajectoryId !== null,
  });
  const run = useQuery({ ...runQuery(runId ?? ""), select: (r) => r.server, enabled: runId !== null });
  if (typeof raw === "string" && raw) return { name: decode(raw), fromUrl: true, pending: false };
  const known = trajectoryId !== null ? recorded : runId !== null ? run : null;
  if (known?.data) return { name: known.data, fromUrl: false, pending: false };
  if (known?.isPending) return { name: "local", fromUrl: false, pending: true };
  return { name: "local", fromUrl: false, pending: false };
}
