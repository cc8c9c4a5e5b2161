// The app's one server registry: `local` is the in-process host of lib/host.ts. Kept on globalThis
// so Next dev HMR does not build a second one.
import "server-only";
import { getLocalHost } from "@/lib/host";
import { createServerRegistry, type ServerRegistry } from "./registry";

const KEY = Symbol.for("ors-playground.server-registry");

export function getServerRegistry(): ServerRegistry {
  const g = globalThis as typeof globalThis & { [KEY]?: ServerRegistry };
  if (!g[KEY]) g[KEY] = createServerRegistry({ localHandler: () => getLocalHost() });
  return g[KEY];
}
