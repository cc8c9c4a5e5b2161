// The trajectories list reads its filters from the URL: a run's episodes (?run=, the link a run's
// page gives), and only well-formed values of the others.
import { describe, expect, it } from "vitest";
import { filterFromParams } from "@/lib/ui/trajectory-filter";
import { filterToParams } from "@/lib/ui/trajectory-queries";

const read = (q: string) => filterFromParams(new URLSearchParams(q));

describe("filterFromParams", () => {
  it("reads a run's id, and the list's request asks the API for that run's episodes", () => {
    const f = read("run=r-123&env=math");
    expect(f).toEqual({ run: "r-123", env: "math" });
    expect(filterToParams(f).get("run")).toBe("r-123");
  });

  it("keeps well-formed values and leaves the rest out", () => {
    expect(
      read(
        "end_reason=finished&min_reward=0.5&max_reward=x&sort=total_reward&order=up&golden=1&task=train/3",
      ),
    ).toEqual({
      end_reason: "finished",
      min_reward: 0.5,
      sort: "total_reward",
      golden: true,
      task: "train/3",
    });
    expect(read("end_reason=exploded&sort=nope&golden=maybe&run=")).toEqual({});
    expect(read("end_reason=running&golden=false")).toEqual({ end_reason: "running", golden: false });
  });
});
