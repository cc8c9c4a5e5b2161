// Browser-side calls to the playground's server registry (GET/POST /api/servers,
// DELETE /api/servers/<name>). Errors carry the registry's `detail` so forms can show it inline.
import { apiError } from "./api-error";

export type ServerSource = "builtin" | "env" | "config" | "user" | "spawned";

export type ServerHealth = { ok: boolean; status?: number; detail?: string; latencyMs?: number };

export type ServerInfo = { name: string; url: string; source: ServerSource; health: ServerHealth };

/** `idleMinutes`: the server's session idle limit, if the user knows it (the episode countdown shows it). */
export type AddServerInput = { name: string; url: string; apiKey?: string; idleMinutes?: string };

export async function fetchServers(signal?: AbortSignal): Promise<ServerInfo[]> {
  const res = await fetch("/api/servers", { signal, headers: { accept: "application/json" } });
  if (!res.ok) throw await apiError(res);
  return (await res.json()) as ServerInfo[];
}

export async function addServer(input: AddServerInput): Promise<ServerInfo> {
  const body: { name: string; url: string; apiKey?: string; idleTimeoutMs?: number } = {
    name: input.name,
    url: input.url,
  };
  if (input.apiKey) body.apiKey = input.apiKey;
  if (input.idleMinutes) body.idleTimeoutMs = Math.round(Number(input.idleMinutes) * 60_000);
  const res = await fetch("/api/servers", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw await apiError(res);
  return (await res.json()) as ServerInfo;
}

export async function removeServer(name: string): Promise<void> {
  const res = await fetch(`/api/servers/${encodeURIComponent(name)}`, { method: "DELETE" });
  if (!res.ok) throw await apiError(res);
}

/** Client-side checks that mirror the registry's rules, so errors show before a round trip. */
export const SERVER_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/;

export function validateServerInput(
  input: AddServerInput,
  existing: string[],
): Partial<Record<keyof AddServerInput, string>> {
  const errors: Partial<Record<keyof AddServerInput, string>> = {};
  const name = input.name.trim();
  if (!name) errors.name = "Enter a name, e.g. py";
  else if (!SERVER_NAME_PATTERN.test(name))
    errors.name = "Use 1–32 lowercase letters, digits, - or _, starting with a letter or digit";
  else if (existing.includes(name)) errors.name = `A server named "${name}" already exists`;
  const url = input.url.trim();
  if (!url) errors.url = "Enter the server's base URL, e.g. http://127.0.0.1:8080";
  else {
    try {
      const u = new URL(url);
      if (u.protocol !== "http:" && u.protocol !== "https:")
        errors.url = "The URL must start with http:// or https://";
    } catch {
      errors.url = "Not a valid URL; try http://127.0.0.1:8080";
    }
  }
  const idle = input.idleMinutes?.trim();
  if (idle && !(Number(idle) > 0 && Number(idle) <= 7 * 24 * 60))
    errors.idleMinutes = "A number of minutes, e.g. 15 (leave it empty if you do not know)";
  return errors;
}
