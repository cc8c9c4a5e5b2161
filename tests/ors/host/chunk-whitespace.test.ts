// The host's chunker never starts (or ends) a piece with a character the reference client strips:
// chunk boundaries around every code point of the one table (lib/ors/protocol/python-whitespace.ts),
// in the byte framing and through a real call, read back as the client reads them (each piece
// lstrip()ped) and equal to what the tool returned.
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createOrsHandler } from "@/lib/ors/host";
import { frameResult } from "@/lib/ors/host/frames";
import {
  isPythonWhitespace,
  PYTHON_WHITESPACE_CODE_POINTS,
  pythonLstrip,
  readSseFrames,
  SSE_CHUNK_SIZE,
} from "@/lib/ors/protocol";
import { defineEnvironment, defineTool, text } from "@/lib/ors/sdk";

const STRIPPED = [...PYTHON_WHITESPACE_CODE_POINTS, 0xfeff].map((c) => String.fromCodePoint(c));

async function pieces(framed: string | Buffer): Promise<string[]> {
  const bytes = typeof framed === "string" ? new TextEncoder().encode(framed) : new Uint8Array(framed);
  const out: string[] = [];
  for await (const f of readSseFrames(new Response(bytes).body!))
    if (f.kind === "event" && (f.event === "chunk" || f.event === "end")) out.push(f.data);
  return out;
}

function expectClean(ps: string[], whole: string): void {
  expect(ps.length).toBeGreaterThan(1);
  ps.forEach((p, i) => {
    expect(isPythonWhitespace(p)).toBe(false);
    expect(STRIPPED.includes(p[0]!)).toBe(false);
    // Nor ends with one (but the last piece, which ends where the text does).
    if (i < ps.length - 1) expect(STRIPPED.includes(p.at(-1)!)).toBe(false);
  });
  expect(ps.join("")).toBe(whole);
  expect(ps.map(pythonLstrip).join("")).toBe(whole);
}

describe("frameResult around every stripped character", () => {
  it("cuts away from each, wherever the 4096-byte boundary falls near it", async () => {
    // It frames serialized JSON, which never holds a raw CR or LF (they would start a new SSE line).
    for (const ch of STRIPPED.filter((c) => c !== "\n" && c !== "\r"))
      for (let d = -3; d <= 3; d++) {
        const s = `${"a".repeat(SSE_CHUNK_SIZE + d)}${ch}${ch}b${"c".repeat(SSE_CHUNK_SIZE)}${ch}`;
        expectClean(await pieces(frameResult(s)), s);
      }
  });
});

describe("a call whose result puts each stripped character at the first chunk boundary", () => {
  const handlers: ReturnType<typeof createOrsHandler>[] = [];
  afterEach(async () => {
    await Promise.all(handlers.splice(0).map((h) => h.close()));
  });

  it("reaches a client that lstrip()s each piece whole", async () => {
    // The serialized result starts with this, so the text's byte k is the JSON's byte HEAD + k.
    const HEAD = Buffer.byteLength('{"ok":true,"output":{"blocks":[{"text":"');
    const env = defineEnvironment({
      name: "ws",
      splits: ["train"],
      listTasks: () => [{}],
      getPrompt: () => "x",
      tools: {
        emit: defineTool({
          description: "a character at byte 4096 + shift of the serialized result",
          input: z.object({ ch: z.string(), shift: z.number().int() }),
          run: ({ ch, shift }) => ({
            blocks: [text(`${"w".repeat(SSE_CHUNK_SIZE - HEAD + shift)}${ch}${ch}${"v".repeat(5000)}`)],
          }),
        }),
      },
    });
    const h = createOrsHandler([env], { log: () => {} });
    handlers.push(h);
    const post = (path: string, sid: string, body: unknown) =>
      h(
        new Request(`http://x${path}`, {
          method: "POST",
          headers: { "x-session-id": sid },
          body: JSON.stringify(body),
        }),
      );
    await post("/create", "s", { split: "train", index: 0 });
    for (const ch of STRIPPED)
      for (const shift of [-1, 0, 1]) {
        const ps = await pieces(
          Buffer.from(await (await post("/call", "s", { name: "emit", input: { ch, shift } })).arrayBuffer()),
        );
        expectClean(ps, ps.join(""));
        const out = JSON.parse(ps.map(pythonLstrip).join("")) as { output: { blocks: { text: string }[] } };
        expect(out.output.blocks[0]!.text).toBe(
          `${"w".repeat(SSE_CHUNK_SIZE - HEAD + shift)}${ch}${ch}${"v".repeat(5000)}`,
        );
      }
  });
});
