// Runs once per Next.js server process: builds the playground's parts (lib/playground.ts) so the
// recorder records every episode passing through the relay from the first request on. Under the
// app's server entry (lib/app-server) the entry has built them already and this finds them. Not
// during `next build` (no relay traffic then, and it must not touch a running server's store).
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs" && process.env.NEXT_PHASE !== "phase-production-build") {
    const { getPlayground } = await import("./lib/playground");
    getPlayground();
  }
}
