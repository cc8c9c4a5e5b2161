// `npm run bench -- --workers N` end to end, small (real processes on loopback, a real nginx and a
// throwaway PostgreSQL cluster): both parts report their figures, with no errors and no step lost.
import { describe, expect, it } from "vitest";
import { scriptOutput } from "../cli/helpers";
import { missingComponent } from "../support/debian";
import { nginxBinary } from "../support/nginx";
import { ensurePostgresBinaries } from "../support/postgres";

const nginx = await nginxBinary("npm run bench -- --workers");
const postgres = ensurePostgresBinaries();
if (!postgres.ok) missingComponent("PostgreSQL", "npm run bench -- --workers", postgres.reason);

describe("npm run bench -- --workers", () => {
  it("measures one process against workers behind nginx, then the relay on PostgreSQL", async () => {
    const stdout = await scriptOutput(
      "bench.ts",
      [
        "--workers",
        "1",
        "--nginx",
        nginx.path,
        "--clients",
        "4",
        "--duration",
        "1",
        "--warmup",
        "0.3",
        "--pg-episodes",
        "8",
        "--pg-clients",
        "4",
        "--pg-warmup",
        "4",
        "--json",
      ],
      240_000,
    );
    expect(stdout).toMatch(/server CPU by part {2}workers \d+\.\d+ \+ nginx \d+\.\d+ \+ supervisor/);
    const r = JSON.parse(stdout.trim().split("\n").at(-1)!) as {
      part1: Record<
        "direct" | "nginx",
        Record<string, number> & { cpuMsPerEpisodeByPart?: Record<string, number> }
      >;
      part2: Record<string, number>;
    };
    for (const part of [r.part1.direct, r.part1.nginx]) {
      expect(part).toMatchObject({ errors: 0, wrongRewards: 0 });
      expect(part.episodes).toBeGreaterThan(0);
      expect(part.serverCpuMsPerEpisode).toBeGreaterThan(0);
    }
    expect(r.part1.nginx.cpuMsPerEpisodeByPart!.workers).toBeGreaterThan(0);
    expect(r.part1.nginx.cpuMsPerEpisodeByPart!.nginx).toBeGreaterThan(0);
    // 12 episodes (4 of them warm-up) of 4 calls: every answered call is a recorded step.
    expect(r.part2).toMatchObject({
      episodes: 8,
      errors: 0,
      warmupErrors: 0,
      callsAnswered: 48,
      stepsRecorded: 48,
      stepsLost: 0,
    });
    expect(r.part2.callP99Ms).toBeGreaterThan(0);
  }, 300_000);
});
