// Runs once per Next.js server process: builds the playground's parts (lib/playground.ts) so the
// recorder records every episode passing through the relay from the first request on. Not during
// `next build` (no relay traffic then, and it must not touch a running server's store).
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs" && process.env.NEXT_PHASE !== "phase-production-build") {
    const { getPlayground, ORS_BASE_PATH } = await import("./lib/playground");
    const playground = getPlayground();
    // ORS requests skip Next's request pipeline in production (ORS_FAST_PATH=0 turns it off).
    if (process.env.NODE_ENV === "production" && process.env.ORS_FAST_PATH !== "0") {
      const { installOrsFastPath } = await import("./lib/ors/host");
      installOrsFastPath({ handler: () => playground.host, basePath: ORS_BASE_PATH, root: true });
    }
  }
}
