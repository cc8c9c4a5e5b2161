// `bigoutput`: a tool whose output is large (150,000 characters with its default arguments, so it
// can be called with `{}`; up to 64 MiB), made of words, spaces, newlines and a few non-ASCII
// characters, to exercise SSE chunking (cuts never at whitespace, never inside a surrogate pair),
// throughput and the episode page with a huge text (npm run bench:ui); and `pictures`, a step of
// several noisy PNG images of about a megabyte each.
import { z } from "zod";
import type { Block } from "@/lib/ors/protocol";
import { defineEnvironment, defineTool, image, text } from "@/lib/ors/sdk";
import { encodePng } from "./paint/png";
import { seededRandom } from "./shared/seeded-random";

export const BIGOUTPUT_DEFAULT_SIZE = 150_000;
export const BIGOUTPUT_MAX_SIZE = 64 * 1024 * 1024;

const WORDS = ["lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "do"];
const SPECIAL = " café — ✓ 🙂 ";

/**
 * The text `dump` returns: `size` UTF-16 code units exactly, lines of about `lineWidth`, with a few
 * non-ASCII characters (one a surrogate pair) every 25 lines unless `ascii`.
 */
export function makeBigText(size: number, lineWidth: number, ascii = false): string {
  const lines: string[] = [];
  let total = 0;
  let n = 0;
  while (total < size) {
    let line = `${String(n).padStart(6, "0")}:`;
    let w = n;
    while (line.length < lineWidth - 12) {
      line += ` ${WORDS[w % WORDS.length]}`;
      w = (w * 31 + 7) % 1009;
    }
    if (n % 25 === 24 && !ascii) line += SPECIAL;
    line += "  \n"; // trailing spaces before the newline: chunk cuts must not land there
    lines.push(line);
    total += line.length;
    n++;
  }
  let out = lines.join("");
  if (out.length > size) {
    out = out.slice(0, size);
    // Never end on half of a surrogate pair: replace it with a plain character.
    const last = out.charCodeAt(size - 1);
    if (last >= 0xd800 && last <= 0xdbff) out = `${out.slice(0, size - 1)}.`;
  }
  return out;
}

// Generating a megabyte costs a few ms (50 MiB about a second); the benchmarks call the same
// sizes again and again.
const cache = new Map<string, string>();
function cachedBigText(size: number, lineWidth: number, ascii: boolean): string {
  const key = `${size}:${lineWidth}:${ascii}`;
  let s = cache.get(key);
  if (s === undefined) {
    s = makeBigText(size, lineWidth, ascii);
    if (cache.size >= 4) cache.delete(cache.keys().next().value!);
    cache.set(key, s);
  }
  return s;
}

const dump = defineTool({
  description:
    "Return a large block of text (150,000 characters by default; up to 64 MiB). Lines of words with " +
    "spaces, newlines and some non-ASCII characters. For testing chunked SSE results and throughput.",
  input: z.object({
    size: z
      .number()
      .int()
      .min(0)
      .max(BIGOUTPUT_MAX_SIZE)
      .default(BIGOUTPUT_DEFAULT_SIZE)
      .describe("Length of the text in characters (UTF-16 code units)"),
    lineWidth: z.number().int().min(20).max(10_000).default(80).describe("Approximate characters per line"),
    ascii: z.boolean().default(false).describe("Plain ASCII only (no é, ✓, 🙂 every 25 lines)"),
  }),
  run: ({ size, lineWidth, ascii }) => {
    const all = cachedBigText(size, lineWidth, ascii);
    return { blocks: [text(all)], reward: 0, finished: false, metadata: { size: all.length } };
  },
});

/**
 * A PNG of noise (incompressible, so its size is about its pixels') of about `kib` KiB, different
 * for each `n`. Square, 3 bytes a pixel.
 */
export function noisePng(kib: number, n: number): Buffer {
  const side = Math.max(1, Math.round(Math.sqrt((kib * 1024) / 3)));
  const rand = seededRandom(0x5eed + n);
  const rgb = new Uint8Array(side * side * 3);
  for (let i = 0; i < rgb.length; i += 4) {
    const v = (rand() * 4294967296) >>> 0;
    rgb[i] = v & 0xff;
    if (i + 1 < rgb.length) rgb[i + 1] = (v >>> 8) & 0xff;
    if (i + 2 < rgb.length) rgb[i + 2] = (v >>> 16) & 0xff;
    if (i + 3 < rgb.length) rgb[i + 3] = v >>> 24;
  }
  return encodePng(side, side, rgb);
}

const pngCache = new Map<string, string>();
function cachedNoisePng(kib: number, n: number): string {
  const key = `${kib}:${n}`;
  let b64 = pngCache.get(key);
  if (b64 === undefined) {
    b64 = noisePng(kib, n).toString("base64");
    if (pngCache.size >= 32) pngCache.delete(pngCache.keys().next().value!);
    pngCache.set(key, b64);
  }
  return b64;
}

const pictures = defineTool({
  description:
    "Return `count` noisy PNG images of about `kib` KiB each (1024 by default): many sizeable " +
    "images in one step, for the episode page's benchmark.",
  input: z.object({
    count: z.number().int().min(1).max(24).describe("How many images"),
    kib: z.number().int().min(1).max(4096).default(1024).describe("Approximate size of each, in KiB"),
  }),
  run: ({ count, kib }) => {
    const blocks: Block[] = [text(`${count} images of about ${kib} KiB each.`)];
    for (let n = 0; n < count; n++) blocks.push(image(cachedNoisePng(kib, n), "image/png"));
    return { blocks, reward: 0, finished: false };
  },
});

const finish = defineTool({
  description: "End the episode (reward 1).",
  run: () => ({ blocks: [text("Done.")], reward: 1, finished: true }),
});

export const bigoutput = defineEnvironment({
  name: "bigoutput",
  description:
    "Large outputs: `dump` returns 150,000 characters with `{}` (size configurable up to 64 MiB), " +
    "sent as many 4096-character SSE chunks; `pictures` returns several noisy PNGs. For chunk " +
    "reassembly tests, the MB/s benchmark and the episode page's benchmark.",
  splits: ["train"],
  listTasks: () => [{ id: 0 }],
  getPrompt: () => "Call `dump` to receive a large text, then `finish`.",
  tools: { dump, pictures, finish },
});
