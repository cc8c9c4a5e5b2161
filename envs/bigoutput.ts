// `bigoutput`: a tool whose output is large (150,000 characters with its default arguments, so it
// can be called with `{}`), made of words, spaces, newlines and a few non-ASCII characters, to
// exercise SSE chunking (cuts never at whitespace, never inside a surrogate pair) and throughput.
import { z } from "zod";
import { defineEnvironment, defineTool, text } from "@/lib/ors/sdk";

export const BIGOUTPUT_DEFAULT_SIZE = 150_000;
export const BIGOUTPUT_MAX_SIZE = 4 * 1024 * 1024;

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

// Generating a megabyte costs a few ms; the benchmark calls the same sizes again and again.
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
    "Return a large block of text (150,000 characters by default; up to 4 MiB). Lines of words with " +
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

const finish = defineTool({
  description: "End the episode (reward 1).",
  run: () => ({ blocks: [text("Done.")], reward: 1, finished: true }),
});

export const bigoutput = defineEnvironment({
  name: "bigoutput",
  description:
    "Large outputs: `dump` returns 150,000 characters with `{}` (size configurable up to 4 MiB), " +
    "sent as many 4096-character SSE chunks. For chunk reassembly tests and the MB/s benchmark.",
  splits: ["train"],
  listTasks: () => [{ id: 0 }],
  getPrompt: () => "Call `dump` to receive a large text, then `finish`.",
  tools: { dump, finish },
});
