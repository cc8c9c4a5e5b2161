// The entry of the episode pages' worker (started by off-thread.ts with `new Worker(new URL(...))`):
// answers the page's requests (stream-worker.ts) on the worker's own global scope.
import { serveWorker } from "./stream-worker";

serveWorker(globalThis as unknown as Parameters<typeof serveWorker>[0]);
