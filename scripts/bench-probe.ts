// `npm run bench:probe`: `check --probe` over the 200 test tasks of `math` against the standalone
// host (scripts/serve.ts, another process), the command run in this process as the CLI runs it
// (docs/benchmarks.md "Reward probes"). Prints the whole command's wall time (the goal: under 30 s),
// the probes' part alone, the episodes the probes played and their rate, and CPU time: this process
// (the check, the playground recording the oracle's run and the findings) and the server's, from
// /proc. Loopback only; the server is stopped by its process id. Figures are printed, never asserted.
//   --tasks N   tasks probed (default 200)     --repeat K   runs of the whole command (default 1)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { allowServerOnlyUnderNode } from "@/lib/app-server/server-only-hook";
import { spawnStandaloneServe, treeCpuSeconds } from "./bench-proc";

await allowServerOnlyUnderNode();
const { checkCommand } = await import("@/lib/cli/check-command");

const { values } = parseArgs({
  options: { tasks: { type: "string", default: "200" }, repeat: { type: "string", default: "1" } },
});
const tasks = Number(values.tasks);
const repeat = Number(values.repeat);
const ROOT = path.resolve(import.meta.dirname, "..");
const ORACLE = path.join(ROOT, "tests/fixtures/quality/oracle.ts");

const server = await spawnStandaloneServe(ROOT, "probe-serve");
const base = server.baseUrl;

console.log(
  `bench:probe on ${os.cpus().length} CPUs (load ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(" ")}), Node ${process.version}`,
);
console.log(
  `check ${base} --probe --env math --split test --tasks ${tasks} --oracle tests/fixtures/quality/oracle.ts`,
);
try {
  for (let i = 0; i < repeat; i++) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-probe-"));
    let out = "";
    const cpu0 = process.cpuUsage();
    const server0 = treeCpuSeconds(server.pid);
    const t0 = performance.now();
    const code = await checkCommand(
      [
        base,
        "--probe",
        "--env",
        "math",
        "--split",
        "test",
        "--tasks",
        String(tasks),
        "--oracle",
        ORACLE,
        "--json",
        "--data-dir",
        dataDir,
      ],
      { stdout: (s) => (out += s), stderr: () => {} },
    );
    const wall = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const serverCpu = treeCpuSeconds(server.pid) - server0;
    const report = JSON.parse(out) as {
      probe: {
        durationMs: number;
        sample: { episodes: number; tasks: number[] };
        results: { id: string; outcome: string }[];
      };
    };
    const p = report.probe;
    const findings = p.results.filter((r) => r.outcome === "finding").map((r) => r.id);
    console.log(
      [
        `run ${i + 1}: exit ${code}; whole command ${wall.toFixed(1)} s (goal < 30 s); probes ${(p.durationMs / 1000).toFixed(1)} s`,
        `  ${p.sample.tasks.length} tasks, ${p.sample.episodes} probe episodes (${(p.sample.episodes / (p.durationMs / 1000)).toFixed(0)}/s) + ${p.sample.tasks.length} oracle episodes recorded`,
        `  CPU: this process ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s, the server ${serverCpu.toFixed(1)} s (${((serverCpu * 1000) / (p.sample.episodes + p.sample.tasks.length)).toFixed(2)} ms per episode)`,
        `  findings: ${findings.length ? findings.join(", ") : "none"}`,
      ].join("\n"),
    );
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
} finally {
  await server.stop();
}
