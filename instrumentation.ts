// Runs once per Next.js server process: starts the trajectory recorder so every episode passing
// through the relay is recorded from the first request on (lib/store/recorder.ts).
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { ensureRecorder } = await import("./lib/store/recorder");
    ensureRecorder();
  }
}
