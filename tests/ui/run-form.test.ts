// The new-run form (lib/ui/run-form.ts): its task selection, each wrong field named, and the request it
// builds, which the server's schema accepts.
import { describe, expect, it } from "vitest";
import { MAX_TURNS_LIMIT, runRequestSchema, type TaskSelection } from "@/lib/runs/spec";
import {
  buildRunRequest,
  DEFAULT_RUN_FORM,
  MAX_TURNS,
  type RunFormValues,
  taskSelectionOf,
} from "@/lib/ui/run-form";

const form = (patch: Partial<RunFormValues>): RunFormValues => ({
  ...DEFAULT_RUN_FORM,
  server: "local",
  env: "math",
  split: "test",
  policy: "model",
  endpoint: "fixture",
  model: "oracle",
  ...patch,
});

describe("the new-run form's task selection", () => {
  it.each<[Partial<RunFormValues>, TaskSelection | undefined]>([
    [{ taskMode: "all" }, undefined],
    [{ taskMode: "range", rangeFrom: "20", rangeTo: " 59 " }, "20-59"],
    [{ taskMode: "list", list: " 1, 5 ,9-12 " }, "1,5,9-12"],
    [
      { taskMode: "sample", sampleSize: "50", sampleSeed: "7" },
      { sample: 50, seed: 7 },
    ],
    [{ taskMode: "sample", sampleSize: "5", sampleSeed: "" }, { sample: 5 }],
  ])("asks for all tasks, a range, a list or a seeded sample: %j is %j", (patch, selection) => {
    expect(taskSelectionOf(form(patch))).toEqual({ ok: true, selection });
  });

  it.each<[Partial<RunFormValues>, string]>([
    [{ taskMode: "range", rangeFrom: "9", rangeTo: "3" }, "rangeTo"],
    [{ taskMode: "range", rangeFrom: "-1", rangeTo: "3" }, "rangeFrom"],
    [{ taskMode: "range", rangeFrom: "0", rangeTo: "" }, "rangeTo"],
    [{ taskMode: "list", list: "1,,2" }, "list"],
    [{ taskMode: "list", list: "a" }, "list"],
    [{ taskMode: "sample", sampleSize: "0" }, "sampleSize"],
    [{ taskMode: "sample", sampleSize: "3", sampleSeed: "1.5" }, "sampleSeed"],
  ])("names the field that is wrong: %j is refused for %s", (patch, field) => {
    expect(taskSelectionOf(form(patch))).toMatchObject({ ok: false, field });
  });
});

describe("the new-run form's request", () => {
  it("builds the request POST /api/runs takes (the server's own schema accepts it)", () => {
    const built = buildRunRequest(
      form({
        taskMode: "range",
        rangeFrom: "0",
        rangeTo: "9",
        repeats: "3",
        concurrency: "2",
        successAt: "0.5",
        timeout: "30",
        maxTurns: "5",
        temperature: "0.2",
      }),
      200,
    );
    expect(built.errors).toEqual({});
    expect(built.request).toEqual({
      server: "local",
      env: "math",
      split: "test",
      tasks: "0-9",
      repeats: 3,
      concurrency: 2,
      successAt: 0.5,
      timeoutMs: 30_000,
      policy: { kind: "model", endpoint: "fixture", model: "oracle", maxTurns: 5, temperature: 0.2 },
    });
    expect(built.tasks).toBe(10);
    expect(built.episodes).toBe(30);
    expect(runRequestSchema.safeParse(built.request).success).toBe(true);
  });

  it("leaves blank settings to the server's defaults", () => {
    const built = buildRunRequest(
      form({ repeats: "", concurrency: "", successAt: "", timeout: "", policy: "random", randomSeed: "" }),
    );
    expect(built.request).toEqual({
      server: "local",
      env: "math",
      split: "test",
      policy: { kind: "random" },
    });
    expect(built.tasks).toBeNull();
    expect(runRequestSchema.safeParse(built.request).success).toBe(true);
  });

  it("builds each policy", () => {
    const r = (patch: Partial<RunFormValues>) => buildRunRequest(form(patch)).request?.policy;
    expect(r({ policy: "random", randomSeed: "7", maxTurns: "3" })).toEqual({
      kind: "random",
      seed: 7,
      maxTurns: 3,
    });
    expect(r({ policy: "replay", replayRun: "abc" })).toEqual({ kind: "replay", run: "abc" });
    expect(r({ policy: "script", scriptModule: " policies/oracle.ts " })).toEqual({
      kind: "script",
      module: "policies/oracle.ts",
    });
  });

  it("resolves the selection against the split's size, as the server will", () => {
    const beyond = buildRunRequest(form({ taskMode: "range", rangeFrom: "0", rangeTo: "200" }), 200);
    expect(beyond.request).toBeNull();
    expect(beyond.errors.rangeTo).toMatch(/^Task 200 is beyond the split/);
    const twice = buildRunRequest(form({ taskMode: "list", list: "1,2,1" }), 200);
    expect(twice.errors.list).toMatch(/selected twice/);
    const sample = buildRunRequest(form({ taskMode: "sample", sampleSize: "300" }), 200);
    expect(sample.errors.sampleSize).toMatch(/sample of 300/);
    expect(buildRunRequest(form({ taskMode: "sample", sampleSize: "20", repeats: "2" }), 200).episodes).toBe(
      40,
    );
    // A replay with "all" plays the replayed run's tasks: how many is not known here.
    expect(buildRunRequest(form({ policy: "replay", replayRun: "abc" }), 200).tasks).toBeNull();
  });

  it("refuses what the server would, field by field", () => {
    const bad = buildRunRequest(
      form({
        server: "",
        env: "",
        split: "",
        repeats: "0",
        concurrency: "1.5",
        successAt: "x",
        timeout: "0",
        maxTurns: String(MAX_TURNS + 1),
        endpoint: "",
        model: " ",
        temperature: "3",
      }),
    );
    expect(bad.request).toBeNull();
    expect(Object.keys(bad.errors).sort()).toEqual(
      [
        "server",
        "env",
        "split",
        "repeats",
        "concurrency",
        "successAt",
        "timeout",
        "maxTurns",
        "endpoint",
        "model",
        "temperature",
      ].sort(),
    );
    expect(buildRunRequest(form({ policy: "replay", replayRun: "" })).errors.replayRun).toBeTruthy();
    expect(buildRunRequest(form({ policy: "script", scriptModule: "" })).errors.scriptModule).toBeTruthy();
  });

  it("keeps the turn limit the server's", () => {
    expect(MAX_TURNS).toBe(MAX_TURNS_LIMIT);
  });
});
