"use client";

import { useQuery } from "@tanstack/react-query";
import { useParams, usePathname } from "next/navigation";
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
 * (`/trajectories/<id>`) the server that trajectory was recorded on (from the trajectory the page
 * reads anyway: one request); else `local`. `pending` while a trajectory's server is not known yet.
 */
export function useCurrentServer(): { name: string; fromUrl: boolean; pending: boolean } {
  const params = useParams<{ server?: string; id?: string }>();
  const pathname = usePathname() ?? "";
  const raw = params?.server;
  const trajectoryId =
    typeof raw !== "string" && typeof params?.id === "string" && /^\/trajectories\/[^/]+$/.test(pathname)
      ? decode(params.id)
      : null;
  const recorded = useQuery({
    ...trajectoryQuery(trajectoryId ?? ""),
    select: (t) => t.server,
    enabled: trajectoryId !== null,
  });
  if (typeof raw === "string" && raw) return { name: decode(raw), fromUrl: true, pending: false };
  if (trajectoryId !== null) {
    if (recorded.data) return { name: recorded.data, fromUrl: false, pending: false };
    if (recorded.isPending) return { name: "local", fromUrl: false, pending: true };
  }
  return { name: "local", fromUrl: false, pending: false };
}
