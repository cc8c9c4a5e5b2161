// Server-side existence checks for the UI's pages, so an unknown server or a built-in host's unknown
// environment answers a real 404 page. Remote servers' environments are checked in the browser
// (through the relay), where a slow server cannot hold up the page.
import "server-only";
import { notFound } from "next/navigation";
import { getPlayground } from "@/lib/playground";

/** Route params arrive percent-encoded in some cases; decode once, tolerating stray `%`. */
export function decodeParam(value: string): string {
  if (!value.includes("%")) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export async function serverExists(name: string): Promise<boolean> {
  return (await getPlayground().registry.get(name)) !== undefined;
}

/**
 * Whether `env` exists on `server`: true/false for the in-process `local` host, `undefined` when it
 * can't be known cheaply here (remote servers, or the local host failing to answer).
 */
export async function envExists(server: string, env: string): Promise<boolean | undefined> {
  const registry = getPlayground().registry;
  const entry = await registry.get(server);
  if (!entry) return false;
  if (entry.source !== "builtin") return undefined;
  try {
    const res = await registry.localHandler()(new Request("http://local/list_environments"));
    if (!res.ok) return undefined;
    const envs = (await res.json()) as unknown;
    return Array.isArray(envs) ? envs.includes(env) : undefined;
  } catch {
    return undefined;
  }
}

/** An environment page's server and environment, decoded; a real 404 for one known not to exist. */
export async function knownEnvironment(
  params: Promise<{ server: string; env: string }>,
): Promise<{ server: string; env: string }> {
  const p = await params;
  const server = decodeParam(p.server);
  const env = decodeParam(p.env);
  if ((await envExists(server, env)) === false) notFound();
  return { server, env };
}
