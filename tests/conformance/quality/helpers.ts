// Test helpers of the quality checks: a playground of its own (a temp data folder) whose built-in
// host serves the quality fixture environments, and views of a report.
import path from "node:path";
import { expect } from "vitest";
import { qualityDeps, runQualityChecks } from "@/lib/conformance/quality/run-quality";
import type { QualityOutcome, QualityReport } from "@/lib/conformance/quality/types";
import { staticEnvironmentSource } from "@/lib/environments/source";
import { createPlayground, type Playground } from "@/lib/playground";
import { qualityEnvironments } from "../../fixtures/quality-envs";
import { tempDir } from "../../runs/helpers";

export const FIXTURES = path.resolve(__dirname, "../../fixtures");
export const ORACLE = path.join(FIXTURES, "quality/oracle.ts");
export const ORACLE_MISSES = path.join(FIXTURES, "quality/oracle-misses.ts");
export const QUALITY_ENVS_MODULE = path.join(FIXTURES, "quality-envs.ts");
/** The fixture environments, on both servers. */
export const QUALITY_ENV_NAMES = ["sound", "leaky", "coinflip", "anyreward", "crashy", "noreward"];

/** A playground in a temp folder whose `local` host serves the quality fixtures (`env`: more variables). */
export function qualityPlayground(env: Record<string, string> = {}): { pg: Playground; dir: string } {
  const dir = tempDir("quality-");
  const pg = createPlayground(
    { PLAYGROUND_DATA_DIR: dir, ...env },
    { environments: staticEnvironmentSource(qualityEnvironments), scriptRoots: null },
  );
  return { pg, dir };
}

/** Each check's outcome, by id. */
/** The quality checks of `env` on `pg`'s server `server`, sampling `tasks` tasks, with `oracle` if given. */
export function checkQuality(
  pg: Playground,
  server: string,
  o: { env: string; tasks: number; oracle?: string },
): Promise<QualityReport> {
  return runQualityChecks(qualityDeps(pg), {
    server,
    env: o.env,
    tasks: o.tasks,
    ...(o.oracle ? { oracle: o.oracle } : {}),
  });
}

export function outcomes(report: QualityReport): Record<string, QualityOutcome> {
  return Object.fromEntries(report.results.map((r) => [r.id, r.outcome]));
}

/** The ids of the checks that found something. */
export function findingIds(report: QualityReport): string[] {
  return report.results.filter((r) => r.outcome === "finding").map((r) => r.id);
}

export function qualityResult(report: QualityReport, id: string) {
  const r = report.results.find((x) => x.id === id);
  if (!r) throw new Error(`no quality result ${id}`);
  return r;
}

/** Every result in a line, for a failed assertion's message. */
export function described(report: QualityReport): string {
  return [
    ...(report.error ? [`error: ${report.error}`] : []),
    ...report.results.map((r) => `${r.id}: ${r.outcome}: ${r.observed}`),
  ].join("\n");
}

/** The checks that found something are exactly `ids`; a failure lists every result. */
export function expectFindings(report: QualityReport, ids: string[]): void {
  expect(findingIds(report), described(report)).toEqual(ids);
}
