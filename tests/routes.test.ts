// The page URLs (lib/routes.ts): every name survives its URL whatever it holds, and the episode
// pages' "Restart on the same task" is a link that works in any tab — a split task by split and
// index, a custom task_spec inline while short, else by the recorded episode (`from`).
import { describe, expect, it } from "vitest";
import {
  checkHref,
  compareRunsHref,
  compareTrajectoriesHref,
  envHref,
  episodeHref,
  homeHref,
  INLINE_TASK_SPEC_MAX,
  liveHref,
  newEpisodeHref,
  newRunHref,
  runHref,
  runsHref,
  serverHref,
  serversHref,
  trajectoriesHref,
  trajectoryHref,
} from "@/lib/routes";
import { restartHref } from "@/lib/ui/trajectory-queries";

describe("newEpisodeHref", () => {
  it("names a split task by split and index", () => {
    expect(newEpisodeHref("py", "farm planner", { split: "train", index: 3 })).toBe(
      "/s/py/e/farm%20planner/episode/new?split=train&task=3",
    );
    expect(newEpisodeHref("local", "math")).toBe("/s/local/e/math/episode/new");
  });

  it("carries a short task_spec inline, which reads back as the same spec", () => {
    const spec = { question: "What is 2 + 2?", answer: "4", tags: ["a&b", "100%"] };
    const url = newEpisodeHref("local", "math", { task_spec: spec }, "traj1");
    const q = new URL(url, "http://x").searchParams;
    expect(JSON.parse(q.get("task_spec")!)).toEqual(spec);
    expect(q.get("from")).toBeNull();
  });

  it("links a long task_spec by the recorded episode that ran it, keeping the URL short", () => {
    const spec = { text: "x".repeat(INLINE_TASK_SPEC_MAX) };
    const url = newEpisodeHref("local", "math", { task_spec: spec }, "abc/1");
    expect(url).toBe("/s/local/e/math/episode/new?from=abc%2F1");
    // Without a record, the tab's draft (the new-episode page's sessionStorage).
    expect(newEpisodeHref("local", "math", { task_spec: spec })).toBe("/s/local/e/math/episode/new?spec=1");
  });

  it("is what the trajectory page's restart uses too", () => {
    const spec = { n: 1 };
    expect(restartHref({ id: "t1", server: "py", env: "canvas", task: { task_spec: spec } })).toBe(
      newEpisodeHref("py", "canvas", { task_spec: spec }, "t1"),
    );
    expect(restartHref({ id: "t1", server: "py", env: null, task: { task_spec: spec } })).toBeNull();
    expect(episodeHref("py", "canvas", "s 1", 2)).toBe("/s/py/e/canvas/episode/s%201?step=2");
  });
});

// Not "." or "..": URL parsers resolve those as dot segments even percent-encoded (the relay refuses
// such environment names for that reason); names that merely hold dots are fine.
const AWKWARD = [
  "plain",
  "two words",
  "a/b",
  "100%",
  "50%25",
  "ünïcödé ✓",
  "q?x=1#h",
  "..x",
  "a.b",
  "a+b&c",
  "日本",
];

/** The path's segments as Next.js hands them to a page (each percent-decoded once). */
function segments(href: string): string[] {
  return new URL(href, "http://x").pathname.split("/").slice(1).map(decodeURIComponent);
}

describe("page URLs", () => {
  it("round-trip awkward server, environment, session and id names through the path", () => {
    for (const name of AWKWARD) {
      expect(segments(serverHref(name))).toEqual(["s", name]);
      expect(segments(checkHref(name))).toEqual(["s", name, "check"]);
      expect(segments(envHref(name, name))).toEqual(["s", name, "e", name]);
      expect(segments(episodeHref(name, name, name))).toEqual(["s", name, "e", name, "episode", name]);
      expect(segments(newEpisodeHref(name, name))).toEqual(["s", name, "e", name, "episode", "new"]);
      expect(segments(trajectoryHref(name))).toEqual(["trajectories", name]);
      expect(segments(runHref(name))).toEqual(["runs", name]);
    }
  });

  it("round-trip awkward values through the query", () => {
    for (const v of AWKWARD) {
      const q = (href: string) => new URL(href, "http://x").searchParams;
      expect(q(envHref("s", "e", { tab: "tasks", split: v, task: 0 })).get("split")).toBe(v);
      expect(q(newEpisodeHref("s", "e", { split: v, index: 2 })).get("split")).toBe(v);
      expect(q(newEpisodeHref("s", "e", { task_spec: { v } }, "t")).get("task_spec")).toBe(
        JSON.stringify({ v }),
      );
      const pair = q(compareTrajectoriesHref(v, `${v}2`));
      expect([pair.get("a"), pair.get("b")]).toEqual([v, `${v}2`]);
      const runs = q(compareRunsHref(v, `${v}2`));
      expect([runs.get("a"), runs.get("b")]).toEqual([v, `${v}2`]);
      expect(q(newRunHref({ server: v, env: v, split: v })).get("env")).toBe(v);
    }
  });

  it("keep the pages' exact shapes", () => {
    expect(envHref("py", "farm planner", { tab: "tasks", split: "train", task: 0 })).toBe(
      "/s/py/e/farm%20planner?tab=tasks&split=train&task=0",
    );
    expect(envHref("py", "math", {})).toBe("/s/py/e/math");
    expect(trajectoryHref("t1", 3)).toBe("/trajectories/t1?step=3");
    expect(trajectoryHref("t1", null)).toBe("/trajectories/t1");
    expect(runHref("r 1", 0)).toBe("/runs/r%201?task=0");
    expect(newRunHref()).toBe("/runs/new");
    expect(newRunHref({ server: "py", env: "" })).toBe("/runs/new?server=py");
    expect(compareTrajectoriesHref("a/1", "b")).toBe("/trajectories/compare?a=a%2F1&b=b");
    expect([homeHref(), serversHref(), trajectoriesHref(), liveHref(), runsHref()]).toEqual([
      "/",
      "/#servers",
      "/trajectories",
      "/live",
      "/runs",
    ]);
  });

  it("the trajectories list of one run carries its id, encoded", () => {
    expect(trajectoriesHref({ run: "r 1/%" })).toBe("/trajectories?run=r%201%2F%25");
    expect(new URL(trajectoriesHref({ run: "r 1/%" }), "http://x").searchParams.get("run")).toBe("r 1/%");
  });
});
