// Runs once per Next.js server process: starts the trajectory recorder so every episode passing
// through the relay is recorded from the first request on (lib/episodes/recorder.ts). Not during
// `next build` (no relay traffic then, and it must not touch a running server's store).
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs" && process.env.NEXT_PHASE !== "phase-production-build") {
    const { ensureRecorder } = await import("./lib/episodes/recorder");
    ensureRecorder();
    // ORS requests skip Next's request pipeline in production (lib/host.ts; ORS_FAST_PATH=0 turns it off).
    if (process.env.NODE_ENV === "production" && process.env.ORS_FAST_PATH !== "0") {
      const { installLocalHostFastPath } = await import("./lib/host");
      installLocalHostFastPath();
    }
  }
}
