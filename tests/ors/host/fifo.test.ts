// The host's first-in first-out queue (ended sessions, kept results): order, peeking, and that the
// consumed front is dropped without losing or reordering what is left.
import { describe, expect, it } from "vitest";
import { Fifo } from "@/lib/ors/host/fifo";

describe("Fifo", () => {
  it("gives items back in the order they came, peek leaving them in place", () => {
    const q = new Fifo<string>();
    expect(q.shift()).toBeUndefined();
    expect(q.peek()).toBeUndefined();
    q.push("a");
    q.push("b");
    expect(q.peek()).toBe("a");
    expect(q.size).toBe(2);
    expect(q.shift()).toBe("a");
    expect(q.shift()).toBe("b");
    expect(q.shift()).toBeUndefined();
    expect(q.size).toBe(0);
  });

  it("keeps its order across the compaction of a long consumed front", () => {
    const q = new Fifo<number>();
    let next = 0;
    let expected = 0;
    // Push 3, take 2, many times: the front is dropped again and again while items stay queued.
    for (let i = 0; i < 5000; i++) {
      for (let k = 0; k < 3; k++) q.push(next++);
      for (let k = 0; k < 2; k++) expect(q.shift()).toBe(expected++);
    }
    expect(q.size).toBe(next - expected);
    while (q.size > 0) expect(q.shift()).toBe(expected++);
    expect(expected).toBe(next);
    q.push(1);
    q.clear();
    expect(q.size).toBe(0);
  });
});
