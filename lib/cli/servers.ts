// A server as the headless commands take it (`diff A B`, `stub --surface`): a URL, or the name of a
// server the playground knows (ORS_SERVERS, or added in the app and kept in the data folder), with
// the API key configured for it. The playground's own `local` has no URL outside the app.
import { createServerRegistry } from "@/lib/registry";
import { UsageError } from "./args";

export interface ResolvedServer {
  /** The name it was given by, or null for a URL. */
  name: string | null;
  url: string;
  apiKey?: string;
}

/** A URL as given on the command line: http(s), no credentials, no trailing slash. */
export function httpUrlOf(value: string): string | null {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return null;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return null;
  if (u.username || u.password)
    throw new UsageError(`${value}: the URL must not carry credentials (use --api-key)`);
  u.hash = "";
  u.search = "";
  return u.toString().replace(/\/+$/, "");
}

/** A URL or a known server's name; a UsageError naming what is wrong otherwise. */
export async function resolveServer(
  value: string,
  dataDir: string,
  env: Record<string, string | undefined>,
): Promise<ResolvedServer> {
  const url = httpUrlOf(value);
  if (url) return { name: null, url };
  if (/^[a-z][a-z0-9+.-]*:/i.test(value))
    throw new UsageError(`${value}: the URL must be http:// or https://`);
  const registry = createServerRegistry({
    dataDir,
    env,
    localHandler: () => () => Promise.reject(new Error("no local host here")),
  });
  const entry = await registry.get(value);
  if (!entry) {
    const names = (await registry.list()).filter((s) => s.source !== "builtin").map((s) => s.name);
    throw new UsageError(
      `no server named "${value}" (give a URL, or one of: ${names.join(", ") || "none configured"})`,
    );
  }
  if (entry.source === "builtin")
    throw new UsageError(
      `"${value}" is the playground's own host: give its URL instead (e.g. http://127.0.0.1:3000/api/ors)`,
    );
  return { name: entry.name, url: entry.url, ...(entry.apiKey ? { apiKey: entry.apiKey } : {}) };
}

/** `name (URL)` or the URL. */
export function serverUrl(s: ResolvedServer): string {
  return s.name ? `${s.name} (${s.url})` : s.url;
}
