// Rewriting golden files for `test --update` (lib/cli/test-update.ts): each re-recorded episode in
// place of its old self, in the file's own shape (JSONL with its line ends, one pretty JSON object,
// a JSON array), every other episode byte for byte; a real file replaced whole, its mode kept.
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { rewriteGoldenText, writeFileReplacing } from "@/lib/cli/test-update";
import type { Trajectory } from "@/lib/trajectory/schema";
import { step, tempDir, trajectory } from "../episodes/helpers";

const a = trajectory("a", { golden: true });
const b = trajectory("b", { golden: true });
const c = trajectory("c");
const newA: Trajectory = { ...a, steps: [step(1, { reward: 0.5 })], total_reward: 0.5 };
const updates = new Map([["a", newA]]);
const dir = tempDir("golden-update-");
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("rewriteGoldenText", () => {
  it("JSONL: the updated line replaced, the others byte for byte, CRLF and a blank line kept", () => {
    const lines = [`${JSON.stringify(b)}  `, JSON.stringify(a), "", JSON.stringify(c)];
    const text = `${lines.join("\r\n")}\r\n`;
    const out = rewriteGoldenText(text, updates);
    expect(out.split("\r\n")).toEqual([lines[0], JSON.stringify(newA), "", lines[3], ""]);
  });

  it("one JSON object, pretty (2 spaces or a tab) or compact, stays so", () => {
    for (const indent of [2, "\t", 0] as const) {
      const out = rewriteGoldenText(`${JSON.stringify(a, null, indent)}\n`, updates);
      expect(out).toBe(`${JSON.stringify(newA, null, indent)}\n`);
    }
  });

  it("a JSON array: the item replaced in place", () => {
    const out = rewriteGoldenText(JSON.stringify([b, a, c], null, 2), updates);
    expect(out).toBe(JSON.stringify([b, newA, c], null, 2));
  });

  it("an update that would change which episodes the file holds is refused", () => {
    const moved = new Map([["a", { ...newA, id: "zzz" }]]);
    expect(() => rewriteGoldenText(JSON.stringify(a), moved)).toThrow(/would not hold the same episodes/);
  });
});

describe("writeFileReplacing", () => {
  it("replaces the file whole, keeps its mode, leaves no temporary file", () => {
    const file = path.join(dir, "golden.jsonl");
    fs.writeFileSync(file, "old\n", { mode: 0o640 });
    fs.chmodSync(file, 0o640);
    writeFileReplacing(file, "new\n");
    expect(fs.readFileSync(file, "utf8")).toBe("new\n");
    expect(fs.statSync(file).mode & 0o777).toBe(0o640);
    expect(fs.readdirSync(dir)).toEqual(["golden.jsonl"]);
  });
});
