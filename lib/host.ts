// The app's ORS host: the built-in environments behind one handler, mounted at /api/ors (and at the
// root through the rewrites of next.config.mjs). Kept on globalThis so Next dev HMR reuses it.
import "server-only";
import { builtinEnvironments } from "@/envs";
import { createOrsHandler, hostOptionsFromEnv, type OrsHandler } from "@/lib/ors/server";

export const ORS_BASE_PATH = "/api/ors";

const KEY = Symbol.for("ors-playground.local-host");

/** The in-process ORS host of the app (built once per process). */
export function getLocalHost(): OrsHandler {
  const g = globalThis as typeof globalThis & { [KEY]?: OrsHandler };
  if (!g[KEY])
    g[KEY] = createOrsHandler(builtinEnvironments, { ...hostOptionsFromEnv(), basePath: ORS_BASE_PATH });
  return g[KEY];
}
