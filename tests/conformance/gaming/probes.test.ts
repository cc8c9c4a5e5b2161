// The reward probes on our host, in process (lib/conformance/gaming): every environment of
// tests/fixtures/gaming-envs.ts, built to be gameable in one way, sets off exactly the probe it was
// built for, with the tasks that paid, each with its recorded episode and the command that plays it
// again; the sound one sets off none. The reference is the fixtures' oracle, played as a run.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeDeps, runProbes } from "@/lib/conformance/gaming/run-probe";
import { findingShare, PROBE_IDS } from "@/lib/conformance/gaming/types";
import { staticEnvironmentSource } from "@/lib/environments/source";
import { createPlayground, type Playground } from "@/lib/playground";
import { GAMING_FINDINGS, gamingEnvironments } from "../../fixtures/gaming-envs";
import { tempDir } from "../../runs/helpers";
import { ORACLE } from "../quality/helpers";

let pg: Playground;
beforeAll(async () => {
  pg = createPlayground(
    { PLAYGROUND_DATA_DIR: tempDir("probes-") },
    { environments: staticEnvironmentSource(gamingEnvironments), scriptRoots: null },
  );
  await pg.ready;
});
afterAll(async () => {
  await pg?.close();
});

const probe = (env: string) =>
  runProbes(probeDeps(pg), {
    server: "local",
    url: "http://local.invalid",
    fetch: (input, init) => pg.host(new Request(input, init)),
    env,
    oracle: ORACLE,
    tasks: 12,
  });

describe("check --probe on environments built to be gamed", () => {
  for (const [env, expected] of Object.entries(GAMING_FINDINGS))
    it(`${env}: ${expected.length ? expected.join(", ") : "no finding"}`, async () => {
      const report = await probe(env);
      const described = report.results.map((r) => `${r.id}: ${r.outcome}: ${r.observed}`).join("\n");
      expect(report.error, described).toBeNull();
      expect(report.results.map((r) => r.id)).toEqual([...PROBE_IDS]);
      expect(
        report.results.filter((r) => r.outcome === "finding").map((r) => r.id),
        described,
      ).toEqual(expected);
      expect(report.summary.passed).toBe(expected.length === 0);
      expect(report.reference).toMatchObject({ kind: "oracle", source: ORACLE });
      expect(report.sample).toMatchObject({ environment: env, split: "train", failed: 0 });
      for (const r of report.results.filter((x) => x.outcome === "finding")) {
        expect(r.share).toBeGreaterThanOrEqual(findingShare(r.id));
        const e = r.evidence[0]!;
        expect(e.reward).toBeGreaterThan(0);
        expect(e.reproduce).toContain(`"$U/${env}/call"`);
        // The episode is recorded in the playground, and shows what the probe did.
        const t = await pg.store.get(e.trajectory!.id);
        expect(t).toMatchObject({ env, task: { split: "train", index: e.task } });
        expect(t!.steps.map((s) => s.input)).toEqual(e.calls.map((c) => c.input));
      }
    }, 120_000);
});
