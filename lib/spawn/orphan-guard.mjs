// The orphan guard of the servers the playground starts (lib/spawn/supervisor.ts): a small detached
// process whose stdin is a pipe from the playground, told "+PGID" / "-PGID" as process groups start
// and end. When the pipe closes — the playground stopped, crashed, or was killed, even by SIGKILL —
// it sends SIGTERM to each group still listed, SIGKILL 3 s later, and exits.
// No imports: it is started with plain `node` (no loader), and needs only `process`.

const groups = new Set();
// Ctrl-C in the terminal, a hang-up, a TERM: only the end of the pipe counts.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => {});

const signalAll = (signal) => {
  for (const pgid of groups) {
    try {
      process.kill(-pgid, signal);
    } catch {
      groups.delete(pgid);
    }
  }
};

let pending = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (text) => {
  const lines = (pending + text).split("\n");
  pending = lines.pop() ?? "";
  for (const line of lines) {
    const m = /^([+-])(\d+)$/.exec(line.trim());
    if (!m) continue;
    const pgid = Number(m[2]);
    if (m[1] === "+") groups.add(pgid);
    else groups.delete(pgid);
  }
});
process.stdin.on("error", () => {});
let ended = false;
const onEnd = () => {
  if (ended) return;
  ended = true;
  signalAll("SIGTERM");
  if (groups.size === 0) process.exit(0);
  setTimeout(() => {
    signalAll("SIGKILL");
    process.exit(0);
  }, 3000);
};
process.stdin.on("end", onEnd);
process.stdin.on("close", onEnd);
