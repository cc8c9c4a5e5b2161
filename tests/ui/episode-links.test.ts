// The episode pages' URLs: "Restart on the same task" is a link that works in any tab — a split task
// by split and index, a custom task_spec inline while short, else by the recorded episode (`from`).
import { describe, expect, it } from "vitest";
import { episodeUrl, INLINE_TASK_SPEC_MAX, newEpisodeUrl } from "@/lib/ui/episode-links";
import { restartHref } from "@/lib/ui/trajectory-queries";

describe("newEpisodeUrl", () => {
  it("names a split task by split and index", () => {
    expect(newEpisodeUrl("py", "farm planner", { split: "train", index: 3 })).toBe(
      "/s/py/e/farm%20planner/episode/new?split=train&task=3",
    );
    expect(newEpisodeUrl("local", "math")).toBe("/s/local/e/math/episode/new");
  });

  it("carries a short task_spec inline, which reads back as the same spec", () => {
    const spec = { question: "What is 2 + 2?", answer: "4", tags: ["a&b", "100%"] };
    const url = newEpisodeUrl("local", "math", { task_spec: spec }, "traj1");
    const q = new URL(url, "http://x").searchParams;
    expect(JSON.parse(q.get("task_spec")!)).toEqual(spec);
    expect(q.get("from")).toBeNull();
  });

  it("links a long task_spec by the recorded episode that ran it, keeping the URL short", () => {
    const spec = { text: "x".repeat(INLINE_TASK_SPEC_MAX) };
    const url = newEpisodeUrl("local", "math", { task_spec: spec }, "abc/1");
    expect(url).toBe("/s/local/e/math/episode/new?from=abc%2F1");
    // Without a record, the tab's draft (the new-episode page's sessionStorage).
    expect(newEpisodeUrl("local", "math", { task_spec: spec })).toBe("/s/local/e/math/episode/new?spec=1");
  });

  it("is what the trajectory page's restart uses too", () => {
    const spec = { n: 1 };
    expect(restartHref({ id: "t1", server: "py", env: "canvas", task: { task_spec: spec } })).toBe(
      newEpisodeUrl("py", "canvas", { task_spec: spec }, "t1"),
    );
    expect(restartHref({ id: "t1", server: "py", env: null, task: { task_spec: spec } })).toBeNull();
    expect(episodeUrl("py", "canvas", "s 1", 2)).toBe("/s/py/e/canvas/episode/s%201?step=2");
  });
});
