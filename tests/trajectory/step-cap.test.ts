// The step-size cap (lib/trajectory/step.ts capStep, keepFrame): a step over the cap is cut to fit,
// says what was cut, still matches the format, and a step within it is left alone.
import { describe, expect, it } from "vitest";
// The variable is read by lib/config.ts; the recorder takes its cap from there.
import { maxStepBytesFrom } from "@/lib/episodes/recorder";
import { trajectorySchema, trajectoryStepSchema } from "@/lib/trajectory/schema";
import {
  capStep,
  cutText,
  DEFAULT_MAX_STEP_BYTES,
  frameBudget,
  jsonBytes,
  keepFrame,
  stepEvent,
} from "@/lib/trajectory/step";
import { step, trajectory } from "../episodes/helpers";

const KB = 1024;
const utf8 = (v: unknown) => new TextEncoder().encode(JSON.stringify(v)).length;

describe("jsonBytes and cutText", () => {
  it.each([
    "plain",
    'quote " and \\ backslash',
    "line\nbreak\u0001",
    "é €",
    "emoji 😀😀",
    "lone \ud800 x",
    { a: [1, "😀"] },
    {
      a: [1, -2.5, 1e21, 0.1, null, true, false, "x", [], {}],
      b: { c: undefined, d: 'é"q', "k\n": [{ z: 0 }] },
      e: Number.NaN,
    },
  ])("count JSON's UTF-8 bytes of %j exactly, escapes and surrogate pairs included", (v) => {
    expect(jsonBytes(v)).toBe(utf8(v));
  });

  it("cuts text to a byte budget without splitting a pair, and leaves short text alone", () => {
    const s = "ab😀cd";
    expect(cutText(s, 100)).toBe(s);
    expect(cutText(s, 2 + 2)).toBe("ab");
    expect(cutText(s, 2 + 5)).toBe("ab"); // the emoji needs 4 bytes: not half of it
    expect(cutText(s, 2 + 6)).toBe("ab😀");
    for (const budget of [10, 100, 1000]) {
      const cut = cutText('é\n"x😀'.repeat(100), budget);
      expect(utf8(cut)).toBeLessThanOrEqual(budget);
      expect(utf8(cut)).toBeGreaterThan(budget - 8);
    }
  });
});

describe("jsonBytes and cutText on long text (measured and copied natively on the server)", () => {
  /** A random string of `n` code units: ASCII, controls, quotes, two- and three-byte characters, pairs and lone surrogates. */
  const randomText = (n: number, seed: number): string => {
    let x = seed;
    const next = () => {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      return x / 2 ** 31;
    };
    const pieces = [
      "a",
      "z",
      " ",
      "\n",
      "\t",
      "\u0001",
      '"',
      "\\",
      "é",
      "€",
      "😀",
      "\ud800",
      "\udc00",
      "\u2028",
    ];
    let out = "";
    while (out.length < n)
      out +=
        next() < 0.7
          ? "abcdefghij".slice(0, 1 + Math.floor(next() * 10))
          : pieces[Math.floor(next() * pieces.length)];
    return out.slice(0, n);
  };

  it("counts exactly what JSON.stringify makes, whatever the text holds", () => {
    for (let seed = 1; seed <= 40; seed++) {
      const s = randomText(1000 + seed * 137, seed);
      expect(jsonBytes(s), `seed ${seed}`).toBe(utf8(s));
      const clean = s.replace(/[\ud800-\udfff]/g, "x");
      expect(jsonBytes(clean), `seed ${seed} without surrogates`).toBe(utf8(clean));
    }
    const big = "line of text é ✓ 🙂\n".repeat(100_000);
    expect(jsonBytes(big)).toBe(utf8(big));
  });

  it("cuts at the longest start that fits, never inside a pair, as a copy", () => {
    for (let seed = 1; seed <= 30; seed++) {
      const s = randomText(40_000, seed).replace(
        /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
        seed % 2 ? "x" : "$&",
      );
      const max = 2_000 + seed * 997;
      const cut = cutText(s, max);
      expect(s.startsWith(cut)).toBe(true);
      expect(utf8(cut)).toBeLessThanOrEqual(max);
      // One more unit (two for a pair) would not fit.
      const c = s.charCodeAt(cut.length);
      const next = s.slice(0, cut.length + (c >= 0xd800 && c <= 0xdbff && cut.length + 1 < s.length ? 2 : 1));
      expect(utf8(next), `seed ${seed}`).toBeGreaterThan(max);
    }
  });
});

describe("capStep", () => {
  const cap = 64 * KB;

  it("returns a step within the cap unchanged", () => {
    const s = step(1, { blocks: [{ type: "text", text: "x".repeat(10 * KB) }] });
    expect(capStep(s, cap)).toBe(s);
  });

  it("cuts a long text to fit and records the sizes", () => {
    const text = "é".repeat(200 * KB);
    const s = step(1, { blocks: [{ type: "text", text }] });
    const out = capStep(s, cap);
    expect(utf8(out)).toBeLessThanOrEqual(cap);
    expect(utf8(out)).toBeGreaterThan(cap * 0.9);
    expect(out.blocks).toHaveLength(1);
    const kept = (out.blocks[0] as { text: string }).text;
    expect(text.startsWith(kept)).toBe(true);
    expect(out.truncated).toEqual({
      original_bytes: utf8(s),
      kept_bytes: utf8({ ...out, truncated: undefined }),
      blocks_cut: 1,
    });
    expect(trajectoryStepSchema.parse(out)).toEqual(out);
    // The rest of the step is untouched.
    expect({ ...out, blocks: s.blocks, truncated: undefined }).toEqual({ ...s, truncated: undefined });
  });

  it("keeps blocks in order until the cap: a text is cut, an image that does not fit is dropped, later blocks too", () => {
    const img = { type: "image" as const, mimeType: "image/png", data: "A".repeat(40 * KB) };
    const s = step(1, {
      blocks: [
        { type: "text", text: "first" },
        img,
        img, // no longer fits: dropped, not cut
        { type: "text", text: "t".repeat(50 * KB) },
        { type: "text", text: "after the cap" },
      ],
    });
    const out = capStep(s, cap);
    expect(out.blocks.map((b) => b.type)).toEqual(["text", "image", "text"]);
    expect(out.blocks[1]).toEqual(img);
    expect(out.truncated).toMatchObject({ blocks_cut: 1, blocks_dropped: 2 });
    expect(utf8(out)).toBeLessThanOrEqual(cap);
  });

  it("bounds the error, the metadata and the frames too", () => {
    const events = Array.from({ length: 2000 }, (_, i) =>
      stepEvent({ kind: "event", event: "noise", data: `n${i}`.padEnd(100, ".") }, i),
    );
    events.push(stepEvent({ kind: "event", event: "end", data: "{}" }, 3000));
    const s = step(1, {
      ok: false,
      error: "E".repeat(100 * KB),
      metadata: { huge: "m".repeat(100 * KB) },
      events,
    });
    const out = capStep(s, cap);
    expect(utf8(out)).toBeLessThanOrEqual(cap);
    expect(out.truncated).toMatchObject({ error_cut: true, metadata_dropped: true });
    expect(out.truncated!.frames_dropped).toBeGreaterThan(1000);
    expect(out.metadata).toBeNull();
    expect(out.error!.startsWith("EEEE")).toBe(true);
    expect(out.events.at(-1)).toMatchObject({ event: "end" }); // the end is kept
    expect(out.events[0]).toEqual(events[0]);
    expect(out.events.length + out.truncated!.frames_dropped!).toBe(events.length);
  });

  it("records frames left out while the call ran, even when the rest fits", () => {
    const s = step(1);
    const out = capStep(s, cap, { droppedFrames: 7, droppedBytes: 700 });
    expect(out.truncated).toEqual({
      original_bytes: utf8(s) + 700,
      kept_bytes: utf8(s),
      frames_dropped: 7,
    });
  });

  it("a capped step round-trips through the trajectory format (export/import)", () => {
    const capped = capStep(step(1, { blocks: [{ type: "text", text: "z".repeat(100 * KB) }] }), cap);
    const t = trajectory("capped", { steps: [capped] });
    expect(trajectorySchema.parse(JSON.parse(JSON.stringify(t)))).toEqual(t);
    // and a step without the marker (an older export) still imports
    expect(trajectorySchema.safeParse(trajectory("old")).success).toBe(true);
  });
});

describe("keepFrame (frames while a call runs)", () => {
  it("keeps frames within a quarter of the cap, counts the rest, always keeps end and error", () => {
    const cap = 64 * KB;
    const budget = frameBudget();
    let kept = 0;
    for (let i = 0; i < 5000; i++)
      if (keepFrame(budget, { t: i, kind: "event", event: "noise", data: "x".repeat(100) }, cap)) kept++;
    expect(kept).toBeGreaterThan(50);
    expect(budget.keptBytes).toBeLessThanOrEqual(cap / 4);
    expect(budget.droppedFrames).toBe(5000 - kept);
    expect(keepFrame(budget, { t: 1, kind: "event", event: "end", data: "{}" }, cap)).toBe(true);
    expect(keepFrame(budget, { t: 1, kind: "comment", comment: "ping" }, cap)).toBe(false);
  });
});

describe("maxStepBytesFrom", () => {
  it("reads PLAYGROUND_MAX_STEP_BYTES, with a default and a floor", () => {
    expect(maxStepBytesFrom({})).toBe(DEFAULT_MAX_STEP_BYTES);
    expect(maxStepBytesFrom({ PLAYGROUND_MAX_STEP_BYTES: "1048576" })).toBe(1048576);
    expect(maxStepBytesFrom({ PLAYGROUND_MAX_STEP_BYTES: "nope" })).toBe(DEFAULT_MAX_STEP_BYTES);
    expect(maxStepBytesFrom({ PLAYGROUND_MAX_STEP_BYTES: "10" })).toBe(16 * 1024);
  });
});
