// Loaded into a benchmarked server with `node --import` (scripts/bench-relay.ts `--memory`; plain
// JavaScript, so it loads before or without tsx): writes the process's memory as V8 and Node see it
// to the file BENCH_MEMORY_FILE every second, one JSON object (its shape: MemoryReading in ./bench-memory.ts).
import fs from "node:fs";
import v8 from "node:v8";

const file = process.env.BENCH_MEMORY_FILE;
/** Anonymous and file-backed resident memory (Linux: /proc/self/status), bytes; 0 elsewhere. */
function residentParts() {
  let status = "";
  try {
    status = fs.readFileSync("/proc/self/status", "utf8");
  } catch {
    // not Linux
  }
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0) * 1024;
  return { rssAnon: kb("RssAnon"), rssFile: kb("RssFile") };
}

if (file) {
  const write = () => {
    const spaces = {};
    for (const s of v8.getHeapSpaceStatistics()) spaces[s.space_name] = s.space_size;
    const reading = { at: Date.now(), ...process.memoryUsage(), ...residentParts(), spaces };
    // Written whole, then renamed: the reader never sees half of it.
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(reading));
    fs.renameSync(`${file}.tmp`, file);
  };
  // Unref'd: the probe never keeps the server alive.
  setInterval(write, 1000).unref();
  write();
}
