// A server as the headless commands take it (`diff A B`, `stub --surface`): a URL, or the name of a
// server the playground knows (ORS_SERVERS, or added in the app and kept in the data folder), with
// the API key configured for it. The playground's own `local` has no URL outside the app.
import { createServerRegistry } from "@/lib/registry";
import { parseHttpUrl, UsageError } from "./args";

export interface ResolvedServer {
  /** The name it was given by, or null for a URL. */
  name: string | null;
  url: string;
  apiKey?: string;
}

/** A URL as given on the command line: http(s), no credentials, no trailing slash; null for no http(s) URL. */
export function httpUrlOf(value: string): string | null {
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) return null;
  return parseHttpUrl(value, value);
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

/**
 * The server at `url` as the playground of `dataDir` knows it, for a command that records episodes
 * there (`check --quality`, `check --probe`, `diff --replay`): its name (added to the playground's
 * servers when on this machine, said on stderr), and the variables a playground made with them
 * reaches it by — its key included.
 */
export async function recordingServer(
  url: string,
  o: { dataDir: string; apiKey?: string; command: string; what: string },
  io: { env?: Record<string, string | undefined>; stderr(text: string): void },
): Promise<{ name: string; env: Record<string, string | undefined> }> {
  const env: Record<string, string | undefined> = { ...io.env, PLAYGROUND_DATA_DIR: o.dataDir };
  // Loaded here: it reads the data folder's (or the database's) servers.
  const { knownName } = await import("./known-server");
  const { name, added, envOnly } = await knownName({ url, dataDir: o.dataDir }, env);
  if (envOnly !== null)
    env.ORS_SERVERS = [env.ORS_SERVERS?.trim(), `${name}=${url}`].filter(Boolean).join(",");
  if (o.apiKey) env[`ORS_SERVER_API_KEY_${name.toUpperCase().replace(/-/g, "_")}`] = o.apiKey;
  if (added) io.stderr(`${o.command}: added the server ${url} to the playground as "${name}"\n`);
  io.stderr(`${o.command}: ${o.what} recorded in ${o.dataDir} (server "${name}")\n`);
  if (envOnly !== null)
    io.stderr(
      `${o.command}: ${url} was not added to the playground's servers (${envOnly}); to open the episodes in the app, start it with ORS_SERVERS=${name}=${url}\n`,
    );
  return { name, env };
}
