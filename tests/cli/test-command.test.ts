// The `test` command on real processes. Golden episodes are recorded through the app's relay (its
// route handler in process, a real SQLite store) against a real ORS server process, marked golden
// and exported over the app's API, then replayed by the real `npm run test:golden` script: it
// passes on the unchanged environment (exit 0, JUnit without failures), fails after a behaviour
// change with the right diff (exit 1), passes again with fields ignored or a tolerance; a server
// that is down is an `unreachable` error; usage mistakes exit 2; Ctrl-C exits 130 and the session
// is deleted. Once against the reference-shaped server (tests/fixtures/reference-server).
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testCommand } from "@/lib/cli/test-command";
import { GOLDEN_REPORT_FORMAT, type GoldenReport } from "@/lib/episodes/golden";
import { createOrsClient, type OrsClient } from "@/lib/ors/client";
import type { Trajectory } from "@/lib/trajectory/schema";
import { tempDir } from "../episodes/helpers";
import { type RunningReferenceServer, startReferenceServer } from "../fixtures/reference-server/spawn";
import { captureIo, flags, runScript } from "./helpers";

const REPO_ROOT = path.resolve(__dirname, "../..");
/** The variant server's URL: a free port, kept across its restarts (behaviour a, then b, then down). */
let VARIANT_URL = "";
let REFERENCE_URL = "";

type RouteHandler<P> = (req: Request, ctx: { params: Promise<P> }) => Promise<Response> | Response;

/** The variant server (tests/cli/test-command-server.ts) as a child process. */
async function startVariant(version: "a" | "b"): Promise<{ child: ChildProcess; stop(): Promise<void> }> {
  const port = VARIANT_URL ? new URL(VARIANT_URL).port : "0";
  const child = spawn(process.execPath, ["--import", "tsx", "tests/cli/test-command-server.ts", port], {
    cwd: REPO_ROOT,
    env: { ...process.env, VARIANT: version },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr!.on("data", (d: Buffer) => {
    err += d.toString();
  });
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        VARIANT_URL = m[1]!;
        resolve();
      }
    });
    child.once("exit", (code) => reject(new Error(`the variant server exited (${code}): ${err}`)));
  });
  return {
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((r) => child.once("exit", () => r()));
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await gone;
      clearTimeout(killer);
    },
  };
}

async function openSessions(): Promise<number> {
  return ((await (await fetch(`${VARIANT_URL}/__sessions`)).json()) as { sessions: number }).sessions;
}

/** `npm run test:golden -- <args>` as a child process. */
const run = (args: string[]) => runScript("test-golden.ts", args);

/** The counts of a JUnit file's <testsuites> element. */
function junitCounts(file: string) {
  const xml = fs.readFileSync(file, "utf8");
  const m = /<testsuites [^>]*tests="(\d+)" failures="(\d+)" errors="(\d+)" skipped="(\d+)"/.exec(xml);
  if (!m) throw new Error(`not a JUnit report: ${xml.slice(0, 200)}`);
  return { xml, tests: +m[1]!, failures: +m[2]!, errors: +m[3]!, skipped: +m[4]! };
}

let variant: Awaited<ReturnType<typeof startVariant>>;

/** Stops the variant server and starts it again as `version`. */
async function switchVariant(version: "a" | "b"): Promise<void> {
  await variant.stop();
  variant = await startVariant(version);
}
let reference: RunningReferenceServer;
let dir: string;
let relay: (server: string) => OrsClient;
let recorded: (server: string, sid: string) => Promise<Trajectory>;
let markGolden: (id: string, golden: boolean) => Promise<Response>;
let exportJsonl: (query: string) => Promise<string>;
/** Golden episodes exported from the app, one file per environment. */
const files = { variant: "", dice: "", farm: "" };
const ids = { variant: "", dice: "", other: "" };

beforeAll(async () => {
  dir = tempDir("golden-cli-");
  [variant, reference] = await Promise.all([startVariant("a"), startReferenceServer({ pingMs: 500 })]);
  REFERENCE_URL = reference.url;
  process.env.PLAYGROUND_DATA_DIR = path.join(dir, "data");
  process.env.ORS_SERVERS = `variant=${VARIANT_URL},py=${REFERENCE_URL}`;
  const relayRoute = (await import("@/app/api/servers/[name]/[...path]/route")) as unknown as Record<
    string,
    RouteHandler<{ name: string; path: string[] }>
  >;
  const goldenRoute = await import("@/app/api/trajectories/[id]/golden/route");
  const exportRoute = await import("@/app/api/trajectories/export/route");
  const { store, recorder } = (await import("@/lib/playground")).getPlayground();
  const relayFetch: typeof fetch = async (input, init) => {
    const req = new Request(input, init);
    const [name, ...rest] = new URL(req.url).pathname.split("/").slice(3).map(decodeURIComponent);
    return relayRoute[req.method]!(req, { params: Promise.resolve({ name: name!, path: rest }) });
  };
  relay = (server) =>
    createOrsClient({ baseUrl: `http://app.test/api/servers/${server}`, fetch: relayFetch });
  recorded = async (server, sid) => {
    await recorder.idle();
    const summary = await store.findBySession(server, sid);
    return (await store.get(summary!.id))!;
  };
  markGolden = (id, golden) =>
    goldenRoute.POST(
      new Request(`http://app.test/api/trajectories/${id}/golden`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ golden }),
      }),
      { params: Promise.resolve({ id }) },
    );
  exportJsonl = async (query) => {
    const res = await exportRoute.GET(new Request(`http://app.test/api/trajectories/export?${query}`));
    expect(res.status).toBe(200);
    return res.text();
  };

  // Recorded through the relay: a deterministic variant episode, a dice one (random on purpose),
  // one that stays ordinary, and a FarmPlanner season on the reference-shaped server.
  const v = relay("variant");
  const episode = async (
    server: string,
    env: string,
    index: number,
    calls: { name: string; input: Record<string, unknown> }[],
  ) => {
    const ors = server === "variant" ? v : relay(server);
    const { sid } = await ors.createSession();
    await ors.create(sid, { env_name: env, split: "train", index });
    await ors.prompt(env, sid);
    for (const c of calls) await ors.callTool(env, sid, c);
    await ors.delete(sid);
    return recorded(server, sid);
  };
  const say = (text: string) => ({ name: "say", input: { text } });
  const stop = { name: "stop", input: {} };
  const tv = await episode("variant", "variant", 0, [say("hello"), say("golden world"), stop]);
  const td = await episode("variant", "dice", 0, [
    { name: "echo", input: { text: "hi" } },
    { name: "roll", input: { sides: 1000 } },
    stop,
  ]);
  const to = await episode("variant", "variant", 1, [say("not golden")]);
  const plan = (crop: string) =>
    Object.fromEntries(["slot_1", "slot_2", "slot_3", "slot_4"].map((k) => [k, { crop, level: "medium" }]));
  const tf = await episode("py", "farmplanner", 0, [
    { name: "observe", input: {} },
    { name: "plan", input: plan("wheat") },
    { name: "plan", input: plan("wheat") },
    { name: "plan", input: plan("wheat") },
  ]);
  expect([tv.end_reason, td.end_reason, to.end_reason, tf.end_reason]).toEqual([
    "finished",
    "finished",
    "user_closed",
    "finished",
  ]);
  ids.variant = tv.id;
  ids.dice = td.id;
  ids.other = to.id;
  for (const t of [tv, td, tf]) expect((await markGolden(t.id, true)).status).toBe(200);

  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };
  files.variant = write("variant.jsonl", await exportJsonl("golden=1&env=variant"));
  files.dice = write("dice.jsonl", await exportJsonl("golden=1&env=dice"));
  files.farm = write("farm.jsonl", await exportJsonl("golden=1&server=py"));
}, 120_000);

afterAll(async () => {
  await variant?.stop();
  await reference?.stop();
  delete process.env.PLAYGROUND_DATA_DIR;
  delete process.env.ORS_SERVERS;
});

describe("golden episodes: mark and export", () => {
  it("exports only the golden ones (?golden=1), each marked golden in the file", async () => {
    const all = (await exportJsonl("golden=1"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Trajectory);
    expect(all.map((t) => t.id).sort()).toEqual(
      [ids.variant, ids.dice, JSON.parse(fs.readFileSync(files.farm, "utf8")).id].sort(),
    );
    expect(all.every((t) => t.golden === true)).toBe(true);
    expect(all.some((t) => t.id === ids.other)).toBe(false);
    const ordinary = JSON.parse((await exportJsonl("golden=0")).trim()) as Trajectory;
    expect(ordinary.id).toBe(ids.other);
    expect(ordinary).not.toHaveProperty("golden");
  });

  it("the golden route: unmark, mark again, 404 for an unknown id, 400 for a bad body", async () => {
    expect(await (await markGolden(ids.other, true)).json()).toEqual({ id: ids.other, golden: true });
    expect((await exportJsonl("golden=1")).includes(ids.other)).toBe(true);
    await markGolden(ids.other, false);
    expect((await exportJsonl("golden=1")).includes(ids.other)).toBe(false);
    expect((await markGolden("no-such-id", true)).status).toBe(404);
    const { POST } = await import("@/app/api/trajectories/[id]/golden/route");
    const bad = await POST(
      new Request("http://app.test/api/trajectories/x/golden", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: '{"golden": "yes"}',
      }),
      { params: Promise.resolve({ id: ids.other }) },
    );
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { detail: string }).detail).toMatch(/golden/);
    const badFilter = await (await import("@/app/api/trajectories/route")).GET(
      new Request("http://app.test/api/trajectories?golden=maybe"),
    );
    expect(badFilter.status).toBe(400);
  });
});

describe("test: golden episodes replayed on a real server process", () => {
  it("passes on the unchanged environment: exit 0, JUnit without failures, the session deleted", async () => {
    const junit = path.join(dir, "pass.xml");
    const { code, stdout } = await run([
      files.variant,
      "--server",
      `variant=${VARIANT_URL}`,
      "--junit",
      junit,
    ]).done;
    expect(stdout).toMatch(new RegExp(`^PASS +${ids.variant} +variant · train/0 · 3 steps`, "m"));
    expect(stdout).toMatch(
      /^Summary: 1 passed, 0 failed, 0 errors, 0 skipped \(1 golden episode, compared exactly, .*\): ok$/m,
    );
    expect(code).toBe(0);
    const j = junitCounts(junit);
    expect(j).toMatchObject({ tests: 1, failures: 0, errors: 0, skipped: 0 });
    expect(j.xml).toContain(
      `<testcase classname="golden.variant.variant" name="${ids.variant} (variant train/0)"`,
    );
    expect(await openSessions()).toBe(0);
  });

  it("a random environment fails exactly; masks, ignored fields and a tolerance make it pass", async () => {
    const exact = await run([files.dice, "--server", VARIANT_URL]).done;
    expect(exact.code).toBe(1);
    expect(exact.stdout).toMatch(
      /^ {4}step 2 · roll \{"sides":1000\} · differs: observation, reward, metadata$/m,
    );
    expect(exact.stdout).toMatch(/^ {8}changed: {2}You rolled \[-\d+-\]\{\+\d+\+\} \(d1000\)\.$/m);
    expect(exact.stdout).not.toMatch(/step 1 ·|step 3 ·/);

    const loose = await run([
      files.dice,
      "--server",
      VARIANT_URL,
      "--mask",
      "rolled \\d+",
      "--ignore",
      "metadata.value",
      "--ignore=metadata.roll",
      "--reward-tolerance",
      "1",
    ]).done;
    expect(loose.stdout).toMatch(/^PASS /m);
    expect(loose.stdout).toMatch(
      /compared ignoring metadata\.value, metadata\.roll; reward tolerance 1; masks \/rolled \\d\+\//,
    );
    expect(loose.code).toBe(0);
    // Half of it is not enough: the metadata still differs.
    const half = await run([
      files.dice,
      ...flags({ server: VARIANT_URL, ignore: "observation", "reward-tolerance": "1" }),
    ]).done;
    expect(half.stdout).toMatch(/differs: metadata$/m);
    expect(half.code).toBe(1);
  });

  describe("after a behaviour change", () => {
    beforeAll(() => switchVariant("b"));

    it("fails with the right diff: exit 1, a JUnit failure carrying it", async () => {
      const junit = path.join(dir, "fail.xml");
      const { code, stdout } = await run([files.variant, "--server", VARIANT_URL, "--junit", junit]).done;
      expect(code).toBe(1);
      expect(stdout).toMatch(new RegExp(`^FAIL +${ids.variant} `, "m"));
      expect(stdout).toContain(
        [
          '    step 1 · say {"text":"hello"} · differs: observation, reward, metadata',
          "      observation:",
          "        expected: you said hello",
          "        got:      you said HELLO!",
          "        changed:  you said [-hello-]{+HELLO!+}",
          "      reward: expected 1, got 0.5",
          '      metadata: expected {"seed":7,"version":"a"}, got {"seed":9,"version":"b"}',
          '    step 2 · say {"text":"golden world"} · differs: observation, reward, metadata',
        ].join("\n"),
      );
      expect(stdout).not.toContain("step 3 ·"); // `stop` did not change
      expect(stdout).toMatch(/^Summary: 0 passed, 1 failed, 0 errors, 0 skipped .*: FAILED$/m);
      const j = junitCounts(junit);
      expect(j).toMatchObject({ tests: 1, failures: 1, errors: 0 });
      expect(j.xml).toContain(
        '<failure message="2 steps differ (first: step 1, observation, reward, metadata)" type="difference">',
      );
      expect(j.xml).toContain("changed:  you said [-hello-]{+HELLO!+}");
      expect(await openSessions()).toBe(0);
    });

    it("--json: the differences for machines", async () => {
      const { code, stdout } = await run([files.variant, "--server", VARIANT_URL, "--json"]).done;
      expect(code).toBe(1);
      const report = JSON.parse(stdout) as GoldenReport;
      expect(report.format).toBe(GOLDEN_REPORT_FORMAT);
      expect(report.summary).toMatchObject({ total: 1, failed: 1, ok: false });
      const r = report.results[0]!;
      expect(r).toMatchObject({ id: ids.variant, status: "fail", url: VARIANT_URL, steps: 3, error: null });
      expect(r.differences.map((d) => d.step)).toEqual([1, 2]);
      expect(r.differences[0]).toMatchObject({
        fields: ["observation", "reward", "metadata"],
        expected: { tool: "say", observation: "you said hello", reward: 1, finished: false },
        got: { tool: "say", observation: "you said HELLO!", reward: 0.5, finished: false },
      });
    });

    it("passes again with the changed fields ignored and a tolerance (fields and paths)", async () => {
      const a = await run([
        files.variant,
        ...flags({ server: VARIANT_URL, ignore: "observation,metadata", "reward-tolerance": "0.5" }),
      ]).done;
      expect(a.stdout).toMatch(/^PASS /m);
      expect(a.code).toBe(0);
      const b = await run([
        files.variant,
        ...flags({
          server: VARIANT_URL,
          ignore: "observation.0.text,metadata.seed,metadata.version",
          "reward-tolerance": "0.4",
        }),
      ]).done;
      expect(b.stdout).toMatch(/^ {6}reward: expected 1, got 0\.5$/m);
      expect(b.code).toBe(1);
    });
  });

  describe("--update (the variant changed since it was recorded)", () => {
    beforeAll(() => switchVariant("b"));

    it("re-records the episodes that differ, in place, says what changed, and they pass afterwards", async () => {
      // One JSONL file: the variant episode (it differs under b) and one that does not differ: only
      // `stop`, on task 1.
      const file = path.join(dir, "update.jsonl");
      const variantLine = fs.readFileSync(files.variant, "utf8").trim();
      const other = JSON.parse(variantLine) as Trajectory;
      const passing: Trajectory = {
        ...other,
        id: `${other.id}-stop`,
        task: { split: "train", index: 1 },
        prompt: [{ type: "text", text: "Say something (task 1).", detail: null }],
        steps: [other.steps[2]!].map((st) => ({ ...st, index: 1 })),
        total_reward: 0,
      };
      const before = `${variantLine}\n${JSON.stringify(passing)}\n`;
      fs.writeFileSync(file, before);

      const { code, stdout, stderr } = await run([file, "--server", VARIANT_URL, "--update"]).done;
      expect(stdout).toMatch(
        /^Golden episodes: 2 from .*update\.jsonl, replayed on .* \(re-recording those that differ\)/,
      );
      expect(stdout).toMatch(new RegExp(`^UPDATED ${ids.variant} +variant · train/0 · 3 steps`, "m"));
      // What changed, as `test` shows a difference.
      expect(stdout).toContain("        changed:  you said [-hello-]{+HELLO!+}");
      expect(stdout).toContain("    re-recorded: ");
      expect(stdout).toMatch(new RegExp(`^PASS +${passing.id} `, "m"));
      expect(stdout).toMatch(
        /^Summary: 1 passed, 1 failed \(1 re-recorded\), 0 errors, 0 skipped .*: re-recorded$/m,
      );
      expect(stderr).toContain(`test: re-recorded 1 episode in ${file}: ${ids.variant}\n`);
      expect(code).toBe(0);

      // The file: the same ids in the same order, the passing line byte for byte, the new observations.
      const after = fs.readFileSync(file, "utf8");
      const lines = after.split("\n");
      expect(lines).toHaveLength(3);
      expect(lines[1]).toBe(JSON.stringify(passing));
      const updated = JSON.parse(lines[0]!) as Trajectory;
      expect(updated).toMatchObject({ id: ids.variant, golden: true, server: "variant", env: "variant" });
      expect(
        updated.steps.map((st) => [st.tool, st.blocks[0]?.type === "text" && st.blocks[0].text, st.reward]),
      ).toEqual([
        ["say", "you said HELLO!", 0.5],
        ["say", "you said GOLDEN WORLD!", 0.5],
        ["stop", "bye", 0],
      ]);
      expect(updated.steps.every((st) => st.replay === undefined)).toBe(true);
      expect(updated.total_reward).toBe(1);
      expect(updated.sid).not.toBe(other.sid);

      // It passes now, with nothing to re-record.
      const again = await run([file, "--server", VARIANT_URL, "--update"]).done;
      expect(again.stdout).toMatch(/^Summary: 2 passed, 0 failed \(0 re-recorded\), .*: ok$/m);
      expect(again.code).toBe(0);
      expect(fs.readFileSync(file, "utf8")).toBe(after);
    });

    it("keeps a pretty JSON file pretty; leaves a file alone when the episode could not run", async () => {
      const file = path.join(dir, "one.json");
      fs.writeFileSync(
        file,
        `${JSON.stringify(JSON.parse(fs.readFileSync(files.variant, "utf8")), null, 2)}\n`,
      );
      const r = await run([file, "--server", VARIANT_URL, "--update", "--json"]).done;
      expect(r.code).toBe(0);
      const report = JSON.parse(r.stdout) as GoldenReport;
      expect(report.results[0]).toMatchObject({ status: "fail", updated: true });
      expect(report.summary).toMatchObject({ failed: 1, updated: 1, ok: false });
      const text = fs.readFileSync(file, "utf8");
      expect(text.startsWith('{\n  "format": "ors-trajectory/1",\n')).toBe(true);
      expect(text.endsWith("}\n")).toBe(true);
      expect((JSON.parse(text) as Trajectory).steps[0]!.reward).toBe(0.5);

      const down = path.join(dir, "down.jsonl");
      fs.copyFileSync(files.variant, down);
      const unreachable = await run([down, "--server", "http://127.0.0.1:9", "--update"]).done;
      expect(unreachable.code).toBe(1);
      expect(unreachable.stdout).toMatch(/^ERROR /m);
      expect(fs.readFileSync(down, "utf8")).toBe(fs.readFileSync(files.variant, "utf8"));
    });
  });

  it("--env: only the episodes of those environments; one that is in no file is a usage mistake", async () => {
    const both = await run([
      files.variant,
      files.dice,
      "--server",
      VARIANT_URL,
      "--env",
      "dice",
      "--mask",
      "rolled \\d+",
      "--ignore",
      "metadata,reward",
    ]).done;
    expect(both.stdout).toMatch(/^Golden episodes: 1 of dice from 2 files, /);
    expect(both.stdout).toMatch(new RegExp(`^PASS +${ids.dice} +dice · `, "m"));
    expect(both.stdout).not.toContain(ids.variant);
    expect(both.code).toBe(0);
    const none = await run([files.variant, files.dice, "--server", VARIANT_URL, "--env", "nope,other"]).done;
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(
      /^test: no golden episode of "nope", "other" in the files \(their environments: dice, variant\)/,
    );
  });

  it("a server that is down: exit 1, an `unreachable` error in the report and in JUnit", async () => {
    await variant.stop();
    const junit = path.join(dir, "down.xml");
    const { code, stdout } = await run([files.variant, "--server", VARIANT_URL, "--junit", junit]).done;
    expect(code).toBe(1);
    expect(stdout).toMatch(new RegExp(`^ERROR ${ids.variant} `, "m"));
    expect(stdout).toMatch(/^ {4}unreachable: \/create_session failed: the server is unreachable/m);
    const j = junitCounts(junit);
    expect(j).toMatchObject({ tests: 1, failures: 0, errors: 1 });
    expect(j.xml).toMatch(
      /<error message="unreachable: \/create_session failed: the server is unreachable[^"]*" type="unreachable"\/>/,
    );
    variant = await startVariant("a");
  });

  it("Ctrl-C: exit 130, the session deleted, the report and JUnit cover what ran", async () => {
    // A recorded episode whose first call now waits a minute (edited like any exported file).
    const t = JSON.parse(fs.readFileSync(files.variant, "utf8")) as Trajectory;
    t.steps[0] = { ...t.steps[0]!, tool: "wait", input: { seconds: 60 } };
    const slow = path.join(dir, "slow.json");
    fs.writeFileSync(slow, JSON.stringify(t, null, 2));
    const junit = path.join(dir, "interrupted.xml");
    const { child, done } = run([slow, files.variant, "--server", VARIANT_URL, "--junit", junit]);
    while ((await openSessions()) === 0 && child.exitCode === null)
      await new Promise((r) => setTimeout(r, 50));
    child.kill("SIGINT");
    const { code, stdout } = await done;
    expect(code).toBe(130);
    expect(await openSessions()).toBe(0);
    expect(stdout).toMatch(/^ERROR .*\n {4}interrupted: the run was interrupted$/m);
    expect(stdout).toMatch(/^SKIP .*\n {4}not run: the run was interrupted$/m);
    expect(junitCounts(junit)).toMatchObject({ tests: 2, errors: 1, skipped: 1 });
  });

  it("--max-time: the run stops in time, as an error, and deletes its session", async () => {
    const slow = path.join(dir, "slow.json");
    const started = Date.now();
    const { code, stdout } = await run([slow, "--server", VARIANT_URL, "--max-time", "1500ms"]).done;
    expect(code).toBe(1);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(stdout).toMatch(/^ {4}timeout: the run's time limit \(1.5 s\) was reached$/m);
    expect(await openSessions()).toBe(0);
  });

  it("--timeout: a request without an answer in time ends that episode as an error", async () => {
    // In process, over a fetch that never answers (until the client gives up on it).
    const silent: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => {
        init?.signal?.addEventListener("abort", () => reject(init.signal!.reason), { once: true });
      });
    const { out, io } = captureIo();
    const started = Date.now();
    const code = await testCommand([files.variant, "--server", "http://silent.test", "--timeout", "200ms"], {
      ...io,
      fetch: silent,
    });
    expect(code).toBe(1);
    expect(out.stdout).toMatch(
      /^ {4}unreachable: \/create_session failed: the server did not answer in time: no answer within 0\.2 s$/m,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("against the reference-shaped server: a FarmPlanner season replays clean", async () => {
    const junit = path.join(dir, "farm.xml");
    const { code, stdout } = await run([files.farm, "--server", `py=${REFERENCE_URL}`, "--junit", junit])
      .done;
    expect(stdout).toMatch(/^PASS +\S+ +farmplanner · train\/0 · 4 steps/m);
    expect(code).toBe(0);
    expect(junitCounts(junit)).toMatchObject({ tests: 1, failures: 0, errors: 0 });
  });
});

describe("test: usage mistakes exit 2 with the reason and the usage", () => {
  it.each([
    [[], /give one or more files/],
    [["FILE"], /give the server to replay on/],
    [["FILE", "--server", "ftp://x"], /--server: the URL must be http/],
    [["FILE", "--server", "http://a:1", "--server", "http://b:2"], /--server URL is given twice/],
    [["FILE", "--server", "http://a:1", "--ignore", "rewards"], /--ignore: cannot ignore "rewards"/],
    [["FILE", "--server", "http://a:1", "--ignore", "reward,"], /--ignore: an empty entry/],
    [["FILE", "--server", "http://a:1", "--reward-tolerance", "-1"], /--reward-tolerance: expected a number/],
    [["FILE", "--server", "http://a:1", "--mask", "("], /--mask: not a regular expression/],
    [["FILE", "--server", "http://a:1", "--max-time", "soon"], /--max-time: expected milliseconds/],
    [
      ["FILE", "--server", "http://a:1", "--junit", "/no/such/dir/out.xml"],
      /--junit: the folder \/no\/such\/dir/,
    ],
    [
      ["FILE", "--server", "http://a:1", "--secret", "NOPE_NOT_SET_ANYWHERE"],
      /\$NOPE_NOT_SET_ANYWHERE is not set/,
    ],
    [["/no/such/file.jsonl", "--server", "http://a:1"], /cannot read \/no\/such\/file\.jsonl: no such file/],
    [
      ["FILE", "--server", "py=http://a:1"],
      /no server for episodes recorded on "variant" \(1 episode\): give --server variant=URL/,
    ],
    [["FILE", "--server", "http://a:1", "--bogus"], /unknown option --bogus/],
    [["FILE", "--server", "http://a:1", "--env", "variant,"], /--env: an empty name/],
    [["FILE", "--server", "http://a:1", "--update=yes"], /--update takes no value/],
  ])("%j", async (argv, reason) => {
    const args = argv.map((a) => (a === "FILE" ? files.variant : a));
    const { out, io } = captureIo();
    expect(await testCommand(args, io)).toBe(2);
    expect(out.stderr).toMatch(reason);
    expect(out.stderr).toMatch(/^usage: test <GOLDEN\.jsonl>\.\.\. --server URL \[options\]/m);
    expect(out.stdout).toBe("");
  });

  it("a file that is not trajectories names the line; the script exits 2", async () => {
    const bad = path.join(dir, "bad.jsonl");
    fs.writeFileSync(bad, `${fs.readFileSync(files.variant, "utf8")}{"format": "nope"}\n`);
    const { code, stdout, stderr } = await run([bad, "--server", VARIANT_URL]).done;
    expect(code).toBe(2);
    expect(stderr).toMatch(/^test: .*bad\.jsonl holds no valid trajectories:\n {2}line 2: /m);
    expect(stdout).toBe("");
  });

  it("--help prints the usage on stdout: exit 0", async () => {
    const { out, io } = captureIo();
    expect(await testCommand(["-h"], io)).toBe(0);
    expect(out.stdout).toMatch(/--reward-tolerance X/);
  });
});
