// The quality checks' rules on hand-made recordings (no server): what an answer leak is and is not
// (choice lists, constants, short values by chance), what a replay difference is (ids masked), what
// a crash is (event: error, a 5xx, an exception's words; not a refusal), and the reward rules.
import { describe, expect, it } from "vitest";
import { analyzeQuality } from "@/lib/conformance/quality/analyze";
import { findAnswerLeaks, findWhole, isAnswerKey, normalize } from "@/lib/conformance/quality/answer-leak";
import { firstDifference } from "@/lib/conformance/quality/determinism";
import type { PlayedEpisode, QualityData } from "@/lib/conformance/quality/played";
import { noReward, oracleBelowMax, trivialReward } from "@/lib/conformance/quality/rewards";
import { crashOf, findCrashes } from "@/lib/conformance/quality/tool-crash";
import type { JsonObject } from "@/lib/ors/protocol";
import { TRAJECTORY_FORMAT, type Trajectory, type TrajectoryStep } from "@/lib/trajectory/schema";
import { recordedStep } from "../steps";

let ids = 0;

const step = recordedStep;

function trajectory(
  task: number,
  prompt: string,
  steps: TrajectoryStep[] = [step()],
  sid = "sid-0000",
): Trajectory {
  return {
    format: TRAJECTORY_FORMAT,
    id: `t${++ids}`,
    server: "s",
    env: "e",
    sid,
    task: { split: "train", index: task },
    prompt: [{ type: "text", text: prompt, detail: null }],
    steps,
    total_reward: steps.reduce((s, x) => s + (x.reward ?? 0), 0),
    started_at: 0,
    ended_at: 1,
    end_reason: "finished",
    error: null,
  };
}

function episode(task: number, t: Trajectory | null, over: Partial<PlayedEpisode> = {}): PlayedEpisode {
  return {
    task,
    repeat: 0,
    status: "done",
    error: null,
    reward: t?.total_reward ?? null,
    trajectory: t,
    ...over,
  };
}

function data(over: Partial<QualityData>): QualityData {
  return {
    env: "e",
    split: "train",
    tasks: [],
    tools: ["submit"],
    random: [],
    randomReplay: [],
    oracle: null,
    oracleReplay: null,
    callFailures: [],
    ...over,
  };
}

/** Tasks and their prompts: `leaks` on the random episodes. */
function leakData(rows: { task: JsonObject; prompt: string }[]) {
  return data({
    tasks: rows.map((r, index) => ({ index, task: r.task })),
    random: rows.map((r, index) => episode(index, trajectory(index, r.prompt))),
  });
}

describe("answer-leak", () => {
  it.each([
    "answer",
    "Answer",
    "answers",
    "correct_answer",
    "finalAnswer",
    "solution",
    "reference-solution",
    "target",
    "label",
    "gold_label",
    "ground_truth",
    "groundTruth",
    "GroundTruth",
    "gt",
  ])("knows %j as an answer field (its name or an obvious variant)", (key) => {
    expect(isAnswerKey(key)).toBe(true);
  });

  it.each(["question", "prompt", "id", "expected", "truth", "ground", "gtx", "labeled"])(
    "knows %j is no answer field",
    (key) => {
      expect(isAnswerKey(key)).toBe(false);
    },
  );

  it("matches whole words only, case and spacing aside", () => {
    expect(findWhole(normalize("The answer is 48."), "48")).toBeGreaterThan(0);
    expect(findWhole(normalize("It costs 148 coins"), "48")).toBe(-1);
    expect(findWhole(normalize("Paris\n\nis   nice"), normalize("PARIS is nice"))).toBe(0);
    expect(findWhole("parisian", "paris")).toBe(-1);
    expect(findWhole("a (b) c", "(b)")).toBe(2);
  });

  it("finds a value given away in the prompt, nested fields too", () => {
    const a = findAnswerLeaks(
      leakData([
        {
          task: { q: "Capital of France?", meta: { solution: { text: "Paris" } } },
          prompt: "Capital of France? Paris!",
        },
        { task: { q: "Capital of Peru?", meta: { solution: { text: "Lima" } } }, prompt: "Capital of Peru?" },
      ]),
    );
    expect(a.leaks).toHaveLength(1);
    expect(a.leaks[0]).toMatchObject({ path: "meta.solution.text", tasks: 1, of: 2 });
    expect(a.leaks[0]!.evidence[0]!.what).toBe(
      'meta.solution.text = "Paris" is in the prompt: "capital of france? paris!"',
    );
  });

  it("is not fooled by a choice list: other tasks' answers in the prompt, or the task's own choices", () => {
    const letters = ["A", "B", "C", "D"];
    const mcq = letters.map((answer, i) => ({
      task: { question: `Question ${i}`, answer },
      prompt: `Question ${i}\nA) one B) two C) three D) four`,
    }));
    expect(findAnswerLeaks(leakData(mcq)).leaks).toEqual([]);
    const own = findAnswerLeaks(
      leakData([
        {
          task: { choices: ["Paris", "Lyon", "Nice"], answer: "Paris" },
          prompt: "Capital? Paris, Lyon or Nice",
        },
        {
          task: { choices: ["Rome", "Milan", "Turin"], answer: "Rome" },
          prompt: "Capital? Rome, Milan or Turin",
        },
      ]),
    );
    expect(own.leaks).toEqual([]);
  });

  it("takes a value every task shares for a constant, not an answer", () => {
    const rows = [0, 1, 2].map((i) => ({
      task: { label: "arithmetic", n: i },
      prompt: `An arithmetic task, ${i}`,
    }));
    expect(findAnswerLeaks(leakData(rows)).leaks).toEqual([]);
  });

  it("counts a short value only when the field is in the prompt on half the tasks", () => {
    // 9 / 3 = 3: the answer is in the question by chance, once in four tasks.
    const chance = [
      { task: { answer: "3" }, prompt: "What is 9 / 3?" },
      { task: { answer: "12" }, prompt: "What is 5 + 7?" },
      { task: { answer: "40" }, prompt: "What is 8 * 5?" },
      { task: { answer: "16" }, prompt: "What is 20 - 4?" },
    ];
    expect(findAnswerLeaks(leakData(chance)).leaks).toEqual([]);
    const given = chance.map((r) => ({ ...r, prompt: `${r.prompt} (it is ${r.task.answer})` }));
    expect(findAnswerLeaks(leakData(given)).leaks[0]).toMatchObject({ path: "answer", tasks: 4, of: 4 });
  });

  it("is not exercised without task objects, and passes when no field is named like an answer", () => {
    const none = analyzeQuality(
      data({ random: [episode(0, trajectory(0, "hi"))], tasks: [{ index: 0, task: null }] }),
    );
    expect(none[0]).toMatchObject({ id: "answer-leak", outcome: "not-exercised" });
    const plain = analyzeQuality(leakData([{ task: { question: "hi" }, prompt: "hi" }]));
    expect(plain[0]).toMatchObject({ outcome: "pass" });
    expect(plain[0]!.observed).toMatch(/^no field named like an answer in 1 task/);
  });
});

describe("nondeterministic", () => {
  it("masks the session id and task_id, compares blocks, rewards, finished and errors", () => {
    // The session id in the prompt, the task_id in the step and its text: both differ, both masked.
    const played = (sid: string, taskId: string) =>
      trajectory(
        0,
        `Session ${sid} ready`,
        [step({ task_id: taskId, blocks: [{ type: "text", text: `run ${taskId} ok`, detail: null }] })],
        sid,
      );
    const a = played("sid-aaaa1111", "task-111111");
    const b = played("sid-bbbb2222", "task-222222");
    expect(firstDifference(a, b)).toBeNull();
    const c = trajectory(0, "Session sid-cccc3333 ready", [step({ reward: 1 })], "sid-cccc3333");
    expect(firstDifference(a, c)).toMatchObject({ step: 1, reward: true });
    expect(firstDifference(a, c)!.what).toContain("reward 0 then 1");
    const d = trajectory(0, "Another prompt", [step()]);
    expect(firstDifference(a, d)).toMatchObject({ step: null, reward: false });
    const e = trajectory(
      0,
      "Session sid-eeee ready",
      [step({ ok: false, error: "boom", blocks: [] })],
      "sid-eeee",
    );
    expect(firstDifference(a, e)!.what).toMatch(/^it succeeded, then failed \("boom"\)/);
  });

  it("does not compare an episode with one of other calls, nor episodes that did not end", () => {
    const a = trajectory(0, "p", [step({ input: { answer: "1" } })]);
    const b = trajectory(0, "p", [step({ input: { answer: "2" }, reward: 1 })]);
    expect(firstDifference(a, b)).toBeNull();
    const results = analyzeQuality(
      data({ random: [episode(0, a)], randomReplay: [episode(0, b, { status: "errored" })] }),
    );
    expect(results[1]).toMatchObject({ id: "nondeterministic", outcome: "not-exercised" });
  });
});

describe("tool-crash", () => {
  it("is event: error, or an exception's words in an ok:false; never a deliberate refusal", () => {
    const frame = { t: 1, kind: "event" as const, event: "error", data: "KeyError: 'x'" };
    expect(crashOf(step({ ok: false, error: "KeyError: 'x'", events: [frame] }))).toMatch(/^event: error/);
    expect(crashOf(step({ ok: false, error: "Cannot read properties of undefined (reading 'a')" }))).toMatch(
      /exception/,
    );
    expect(
      crashOf(step({ ok: false, error: "Traceback (most recent call last):\n  File ..." })),
    ).not.toBeNull();
    expect(crashOf(step({ ok: false, error: "IndexError: list index out of range" }))).not.toBeNull();
    expect(
      crashOf(step({ ok: false, error: 'Tool "x" returned an invalid result: blocks: expected an array' })),
    ).not.toBeNull();
    expect(crashOf(step({ ok: false, error: "No patient P9 is waiting" }))).toBeNull();
    expect(
      crashOf(step({ ok: false, error: "Tool input validation error: [{'type': 'missing'}]" })),
    ).toBeNull();
    expect(crashOf(step({ ok: true }))).toBeNull();
  });

  it("counts a /call answered 5xx in one of its sessions, shows a crash its replay repeats once", () => {
    const crash = step({
      tool: "inspect",
      input: { slot: 5 },
      ok: false,
      error: "x is not a function",
      blocks: [],
    });
    const t = trajectory(0, "p", [crash], "sid-12345678");
    const r = trajectory(0, "p", [crash], "sid-87654321");
    const c = findCrashes(
      data({
        random: [episode(0, t)],
        randomReplay: [episode(0, r)],
        callFailures: [
          { sid: "sid-12345678", status: 500, detail: "Internal Server Error" },
          { sid: "someone-else", status: 500, detail: "not ours" },
        ],
      }),
    );
    expect(c.evidence.map((e) => e.what)).toEqual([
      'random: inspect failed: {"ok": false} with an exception: "x is not a function"',
      'a /call was answered HTTP 500: "Internal Server Error"',
    ]);
    expect(c.tools).toEqual(["inspect"]);
  });
});

describe("rewards", () => {
  const rewarded = (task: number, reward: number | null) =>
    episode(task, trajectory(task, "p", [step({ reward })]));

  it("no-reward: null everywhere is a finding; zeros are one only when the oracle got nothing either", () => {
    expect(noReward(data({ random: [rewarded(0, null), rewarded(1, null)] })).outcome).toBe("finding");
    expect(noReward(data({ random: [rewarded(0, 0)] })).outcome).toBe("not-exercised");
    expect(noReward(data({ random: [rewarded(0, 0)], oracle: [rewarded(0, 0)] })).outcome).toBe("finding");
    expect(noReward(data({ random: [rewarded(0, 0)], oracle: [rewarded(0, 1)] })).outcome).toBe("pass");
    expect(noReward(data({ random: [episode(0, null, { status: "errored" })] })).outcome).toBe(
      "not-exercised",
    );
  });

  it("trivial-reward: random inputs at the best reward on 80% of the tasks", () => {
    const random = (hits: number, of: number) =>
      Array.from({ length: of }, (_, i) => rewarded(i, i < hits ? 1 : 0));
    expect(trivialReward(data({ random: random(4, 5) })).outcome).toBe("finding");
    const v = trivialReward(data({ random: random(3, 5) }));
    expect(v).toMatchObject({ outcome: "pass" });
    expect(v.observed).toBe(
      "random valid inputs reached the best reward seen (1) on 3 of 5 tasks (60%): below 80%",
    );
    // Against the oracle's reward task by task: where the oracle got 0 there is nothing to reach.
    const oracle = [rewarded(0, 1), rewarded(1, 0), rewarded(2, 0)];
    expect(
      trivialReward(data({ random: [rewarded(0, 1), rewarded(1, 0), rewarded(2, 0)], oracle })),
    ).toMatchObject({
      outcome: "finding",
    });
  });

  it("oracle-below-max: below the best seen, or errored; not exercised without an oracle", () => {
    expect(oracleBelowMax(data({})).outcome).toBe("not-exercised");
    const v = oracleBelowMax(
      data({
        random: [rewarded(0, 0)],
        oracle: [
          rewarded(0, 1),
          rewarded(1, 0.5),
          episode(2, null, { status: "errored", error: "script threw" }),
        ],
      }),
    );
    expect(v.outcome).toBe("finding");
    expect(v.outcome === "finding" && v.evidence.map((e) => [e.task, e.what])).toEqual([
      [1, "the oracle got 0.5, the best seen is 1"],
      [2, "the oracle's episode errored: script threw"],
    ]);
  });
});
