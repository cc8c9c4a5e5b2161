// The app's one relay over the app's server registry, kept on globalThis for Next dev HMR.
import "server-only";
import { getServerRegistry } from "@/lib/registry/app-registry";
import { createRelay, type Relay } from "./relay";

const KEY = Symbol.for("ors-playground.relay");

export function getRelay(): Relay {
  const g = globalThis as typeof globalThis & { [KEY]?: Relay };
  if (!g[KEY]) g[KEY] = createRelay({ registry: getServerRegistry() });
  return g[KEY];
}
