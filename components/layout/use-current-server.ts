"use client";

import { useParams } from "next/navigation";

/** The server named in the URL (`/s/<server>/...`), or `local` outside a server's pages. */
export function useCurrentServer(): { name: string; fromUrl: boolean } {
  const params = useParams<{ server?: string }>();
  const raw = params?.server;
  if (typeof raw === "string" && raw) return { name: decodeURIComponent(raw), fromUrl: true };
  return { name: "local", fromUrl: false };
}
