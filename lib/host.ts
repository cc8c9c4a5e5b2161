// The app's ORS host: the built-in environments behind one handler, mounted at /api/ors (and at the
// root through the rewrites of next.config.mjs). Kept on globalThis so Next dev HMR reuses it.
import "server-only";
import { builtinEnvironments } from "@/envs";
import { createOrsHandler, hostOptionsFromEnv, installOrsFastPath, type OrsHandler } from "@/lib/ors/host";

export const ORS_BASE_PATH = "/api/ors";

const KEY = Symbol.for("ors-playground.local-host");

/** The in-process ORS host of the app (built once per process). */
export function getLocalHost(): OrsHandler {
  const g = globalThis as typeof globalThis & { [KEY]?: OrsHandler };
  if (!g[KEY])
    g[KEY] = createOrsHandler(builtinEnvironments, { ...hostOptionsFromEnv(), basePath: ORS_BASE_PATH });
  return g[KEY];
}

/**
 * Serves the ORS paths (`/api/ors/...` and the root shapes the rewrites cover) of this `next start`
 * process straight from the node:http adapter, skipping Next's request pipeline; the route file
 * stays the fallback (and serves `next dev`). Called from instrumentation.ts in production unless
 * `ORS_FAST_PATH=0`.
 */
export function installLocalHostFastPath(): void {
  installOrsFastPath({ handler: getLocalHost, basePath: ORS_BASE_PATH, root: true });
}
