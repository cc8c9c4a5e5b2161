import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  freeLoopbackPort,
  processExists,
  processTree,
  treeCpuSeconds,
  treeRssBytes,
} from "@/scripts/bench-proc";

describe("bench /proc readings", () => {
  it("counts the CPU time and RSS of a process tree, children included", async () => {
    // A child that burns 300 ms of CPU (its own count, not wall time), then waits to be killed.
    const child = spawn(process.execPath, [
      "-e",
      "while (process.cpuUsage().user < 300000); console.log('done'); setTimeout(() => {}, 30000)",
    ]);
    try {
      await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
      expect(processTree(process.pid)).toContain(child.pid);
      expect(processTree(child.pid!)).toEqual([child.pid]);
      expect(treeCpuSeconds(child.pid!)).toBeGreaterThanOrEqual(0.2);
      expect(treeCpuSeconds(process.pid)).toBeGreaterThanOrEqual(treeCpuSeconds(child.pid!));
      expect(treeRssBytes(child.pid!)).toBeGreaterThan(10 * 1024 * 1024);
    } finally {
      child.kill();
    }
    await new Promise((r) => child.once("exit", r));
    expect(processExists(child.pid!)).toBe(false);
  });

  it("finds a free loopback port in the assigned range", async () => {
    const port = await freeLoopbackPort(8350, 8399);
    expect(port).toBeGreaterThanOrEqual(8350);
    expect(port).toBeLessThanOrEqual(8399);
  });
});
