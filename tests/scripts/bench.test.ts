// `npm run bench`'s floor server, image and escape-heavy text modes, and `npm run bench:host`, work
// end to end (short real runs on loopback): the floor answers whole episodes with 0 errors, the
// large cases deliver their blocks, and bench:host compares servers round by round.
import { inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { noisePng } from "../../scripts/bench-env";
import { scriptOutput } from "../cli/helpers";

const run = async (...args: string[]) => {
  const stdout = await scriptOutput(
    "bench.ts",
    ["--duration", "1", "--warmup", "0.3", "--json", ...args],
    90_000,
  );
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, number>;
};

describe("npm run bench", () => {
  it("--spawn floor: fixed answers make whole episodes, with the server's CPU per episode", async () => {
    const r = await run("--spawn", "floor", "--clients", "4");
    expect(r).toMatchObject({ errors: 0, wrongRewards: 0 });
    expect(r.episodes).toBeGreaterThan(10);
    expect(r.serverCpuMsPerEpisode).toBeGreaterThan(0);
  });

  it("--mode image: a 1 MB PNG block per call, with the server's CPU per MB", async () => {
    const r = await run("--spawn", "standalone", "--mode", "image", "--clients", "2");
    expect(r).toMatchObject({ mode: "image", errors: 0 });
    expect(r.calls).toBeGreaterThan(0);
    expect(r.mbPerSec).toBeGreaterThan(0);
    expect(r.serverCpuMsPerMb).toBeGreaterThan(0);
  });

  it("--mode large --escapes: escape-heavy text of the size asked, with the server's CPU per MB", async () => {
    const r = await run(
      "--spawn",
      "standalone",
      "--mode",
      "large",
      "--escapes",
      "--size",
      "65536",
      "--clients",
      "2",
    );
    expect(r).toMatchObject({ mode: "large", env: "benchtext", errors: 0 });
    expect(r.calls).toBeGreaterThan(0);
    expect(r.serverCpuMsPerMb).toBeGreaterThan(0);
  });

  it("bench:host measures each server in every round and its ratio to the first", async () => {
    const stdout = await scriptOutput(
      "bench-compare.ts",
      ["--servers", "floor,standalone", "--rounds", "2"].concat([
        "--duration",
        "0.5",
        "--warmup",
        "0.3",
        "--clients",
        "4",
      ]),
      120_000,
    );
    expect(stdout).toMatch(/^round 1 \(load [\d. ]+\): floor [\d.]+ {3}standalone [\d.]+ ms\/episode$/m);
    expect(stdout).toMatch(/^round 2 /m);
    expect(stdout).toMatch(/^ {2}floor +[\d.]+ ms\/episode {3}× 1\.00 \(1\.00–1\.00\)/m);
    expect(stdout).toMatch(/^ {2}standalone +[\d.]+ ms\/episode {3}× [\d.]+ \([\d.]+–[\d.]+\)/m);
  });

  it("the image is a real PNG of about the size asked, which deflate cannot shrink", () => {
    const png = noisePng(1024 * 1024);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.length).toBeGreaterThan(1_000_000);
    expect(png.length).toBeLessThan(1_100_000);
    const idatLength = png.readUInt32BE(33);
    const side = png.readUInt32BE(16);
    expect(inflateSync(png.subarray(41, 41 + idatLength)).length).toBe(side * (side * 3 + 1));
  });
});
