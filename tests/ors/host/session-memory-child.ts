// Run by session-memory.test.ts under `node --expose-gc`: creates 40 sessions with 4 MiB task specs
// on the host, deletes them, and prints the heap used before, while held and after (bytes).
import { builtinEnvironments } from "@/envs";
import { createOrsHandler } from "@/lib/ors/host";

const gc = (globalThis as { gc?: () => void }).gc!;
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const h = createOrsHandler(builtinEnvironments, { maxSessionBytes: 1024 * 1024 * 1024, log: () => {} });
const post = (path: string, sid: string, body: string) =>
  h(
    new Request(`http://x${path}`, {
      method: "POST",
      headers: { "x-session-id": sid, "content-type": "application/json" },
      body,
    }),
  );

const before = heap();
const sids: string[] = [];
for (let i = 0; i < 40; i++) {
  const sid = `s${i}`;
  const res = await post(
    "/create",
    sid,
    JSON.stringify({
      env_name: "math",
      task_spec: { i, pad: String.fromCharCode(97 + (i % 26)).repeat(4 * 1024 * 1024) },
    }),
  );
  if (res.status !== 200) throw new Error(`create ${i}: ${res.status} ${await res.text()}`);
  sids.push(sid);
}
const held = heap();
for (const sid of sids) await post("/delete", sid, "");
const after = heap();
const bytesAfter = h.host.stats().sessionBytes;
await h.close();
process.stdout.write(JSON.stringify({ before, held, after, bytesAfter }));
