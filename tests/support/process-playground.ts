// The composition root of a test's own app process (tests/episodes/relay-process.ts,
// tests/replicas/replica-server.ts), built from its environment as the server entry builds it.
// Import it once allowServerOnlyUnderNode() has run (lib/app-server/server-only-hook.ts).

/** The process's playground once its store is ready; one that cannot start says why and exits 1. */
export async function readyPlayground(what: string) {
  const { initPlayground } = await import("@/lib/playground");
  const playground = initPlayground({});
  try {
    await playground.ready;
  } catch (err) {
    console.error(`could not start ${what}: ${(err as Error).message}`);
    process.exit(1);
  }
  return playground;
}
