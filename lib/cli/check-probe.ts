// `check URL --probe` (docs/check.md "Can the reward be gamed?"): the probes' part of the check
// command — their flags (the sample's are --quality's), the reference (--oracle, --baseline RUN or
// --golden FILE), and the play: the playground of the data folder the app uses, where the oracle and
// the findings' episodes are recorded; the report joined to the protocol's.
import fs from "node:fs";
import path from "node:path";
import { unplayedProbe } from "@/lib/conformance/gaming/report";
import type { ProbeReport } from "@/lib/conformance/gaming/types";
import type { Playground } from "@/lib/playground";
import { isRunError } from "@/lib/runs/errors";
import { parseTrajectories } from "@/lib/trajectory/jsonl";
import { type ParsedArgs, UsageError } from "./args";
import { parseSampleFlags, progressLines, type QualityArgs } from "./check-quality";
import type { HeadlessIo } from "./io";
import { recordingServer } from "./servers";

export const PROBE_VALUE_FLAGS = ["--baseline", "--golden"] as const;

export const PROBE_USAGE = `reward probes (docs/check.md "Can the reward be gamed?"):
  --probe                 also probe whether the reward can be gamed: empty and whitespace answers,
                          one answer for every task, random valid inputs, the prompt echoed back,
                          format games ("34 or 35"), a second answer after a wrong one, calls after
                          finished, the task's hidden fields — each compared with the best reward of
                          the reference: --oracle MODULE (as above), or
  --baseline RUN          a recorded run's episodes, or
  --golden FILE           golden episodes (JSONL, as \`test\` reads them)
                          (--split, --tasks, --seed, --data-dir and --app-url as for --quality)
`;

export interface ProbeArgs {
  sample: QualityArgs;
  baseline?: string;
  /** The golden file, absolute. */
  golden?: string;
}

/** The probe flags of a parsed command line (null without --probe); throws UsageError. */
export function parseProbeArgs(
  args: ParsedArgs,
  env: Record<string, string | undefined>,
  cwd: string,
): ProbeArgs | null {
  if (!args.booleans.has("--probe")) {
    const stray = PROBE_VALUE_FLAGS.find((f) => args.values.has(f));
    if (stray) throw new UsageError(`${stray} goes with --probe`);
    return null;
  }
  const out: ProbeArgs = { sample: parseSampleFlags(args, env, cwd) };
  const baseline = args.values.get("--baseline");
  if (baseline !== undefined) {
    if (!baseline.trim()) throw new UsageError("--baseline: empty run id");
    out.baseline = baseline;
  }
  const golden = args.values.get("--golden");
  if (golden !== undefined) {
    const file = path.resolve(cwd, golden);
    if (!golden.trim() || !fs.existsSync(file) || !fs.statSync(file).isFile())
      throw new UsageError(`--golden: no file ${file}`);
    out.golden = file;
  }
  const given = [out.sample.oracle, out.baseline, out.golden].filter((x) => x !== undefined).length;
  if (given === 0)
    throw new UsageError(
      "--probe compares what each probe earns with the best reward: give --oracle MODULE, --baseline RUN or --golden FILE",
    );
  if (given > 1) throw new UsageError("give one reference for --probe: --oracle, --baseline or --golden");
  return out;
}

/** The golden file's episodes; a UsageError naming what is wrong in it. */
function readGolden(file: string) {
  const parsed = parseTrajectories(fs.readFileSync(file, "utf8"));
  if (!parsed.ok) throw new UsageError(`--golden ${file}: ${parsed.errors.join("; ")}`);
  return { file, trajectories: parsed.trajectories };
}

/**
 * Plays the probes against `o.url`, recording into the playground of the data folder. Answers the
 * report, and 2 as `exit` when they could not play for a mistake of the command line (an unknown
 * run, environment or split, an oracle that fails to load), 1 when the server failed them.
 */
export async function playProbe(
  p: ProbeArgs,
  o: { url: string; env: string | null; apiKey?: string; allow: readonly string[]; maxTimeMs?: number },
  io: HeadlessIo,
): Promise<{ report: ProbeReport; exit: number | null }> {
  let golden: ReturnType<typeof readGolden> | undefined;
  try {
    golden = p.golden ? readGolden(p.golden) : undefined;
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return { report: unplayedProbe(o.url, err.message, o.allow), exit: 2 };
  }
  const { name, env } = await recordingServer(
    o.url,
    {
      dataDir: p.sample.dataDir,
      apiKey: o.apiKey,
      command: "check",
      what: "the probes' reference and findings are",
    },
    io,
  );
  let pg: Playground | null = null;
  try {
    // Loaded here, not at the CLI's start: the protocol check alone needs none of it.
    const { createPlayground } = await import("@/lib/playground");
    const { probeDeps, runProbes } = await import("@/lib/conformance/gaming/run-probe");
    pg = createPlayground(env, { scriptRoots: null });
    await pg.ready;
    const report = await runProbes(probeDeps(pg), {
      server: name,
      url: o.url,
      ...(o.apiKey ? { apiKey: o.apiKey } : {}),
      ...(io.fetch ? { fetch: io.fetch } : {}),
      env: o.env,
      ...(p.sample.split !== undefined ? { split: p.sample.split } : {}),
      ...(p.sample.tasks !== undefined ? { tasks: p.sample.tasks } : {}),
      ...(p.sample.seed !== undefined ? { seed: p.sample.seed } : {}),
      ...(p.sample.oracle !== undefined ? { oracle: p.sample.oracle } : {}),
      ...(p.baseline !== undefined ? { baseline: p.baseline } : {}),
      ...(golden ? { golden } : {}),
      allow: o.allow,
      signal: io.signal,
      ...(o.maxTimeMs !== undefined ? { maxTimeMs: o.maxTimeMs } : {}),
      onProgress: io.progress ? progressLines("probe", io, 200) : undefined,
    });
    return { report, exit: null };
  } catch (err) {
    if (!isRunError(err)) throw err;
    return { report: unplayedProbe(name, err.detail, o.allow), exit: err.status < 500 ? 2 : 1 };
  } finally {
    await pg?.close();
  }
}
