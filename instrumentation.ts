// Runs once per Next.js server process: starts the trajectory recorder so every episode passing
// through the relay is recorded from the first request on (lib/store/recorder.ts). Not during
// `next build` (no relay traffic then, and it must not touch a running server's store).
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs" && process.env.NEXT_PHASE !== "phase-production-build") {
    const { ensureRecorder } = await import("./lib/store/recorder");
    ensureRecorder();
  }
}
