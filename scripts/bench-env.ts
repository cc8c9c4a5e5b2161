// The benchmark's own environments, served next to the built-ins by the spawned server (`serve
// --env`): `benchimage` (`--mode image`: `png` returns one PNG image block of about `size` bytes of
// noise, which does not compress) and `benchtext` (`--mode large --escapes`: `escaped` returns text
// that JSON must escape often: quotes, backslashes, newlines and runs of spaces).
import { deflateSync } from "node:zlib";
import { z } from "zod";
import type { Block } from "@/lib/ors/protocol";
import { defineEnvironment, defineTool, image, text } from "@/lib/ors/sdk";

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A valid RGB PNG of about `bytes` bytes: noise (seeded), which deflate cannot shrink. */
export function noisePng(bytes: number): Buffer {
  const side = Math.max(1, Math.round(Math.sqrt(bytes / 3)));
  const raw = Buffer.alloc(side * (side * 3 + 1));
  let x = 0x9e3779b9;
  for (let i = 0; i < raw.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    raw[i] = i % (side * 3 + 1) === 0 ? 0 : x & 0xff;
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    sig,
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/**
 * A benchmark tool: its output for a `size` (bytes or characters, 1 MiB by default) is made once and
 * returned again, since making it is the environment's cost, not the host's.
 */
function sizedTool(description: string, min: number, make: (size: number) => Block[]) {
  const made = new Map<number, Block[]>();
  return defineTool({
    description,
    input: z.object({
      size: z
        .number()
        .int()
        .min(min)
        .max(64 * 1024 * 1024)
        .default(1024 * 1024),
    }),
    run: ({ size }) => {
      let blocks = made.get(size);
      if (blocks === undefined) {
        blocks = make(size);
        made.set(size, blocks);
      }
      return { blocks, reward: 0, finished: false };
    },
  });
}

/** A benchmark environment: one task in `train`, whose prompt asks for its one (sized) tool. */
function benchEnvironment(
  name: string,
  description: string,
  toolName: string,
  tool: ReturnType<typeof sizedTool>,
) {
  return defineEnvironment({
    name,
    description,
    splits: ["train"],
    listTasks: () => [{ id: 0 }],
    getPrompt: () => `Call ${toolName}.`,
    tools: { [toolName]: tool },
  });
}

export const benchimage = benchEnvironment(
  "benchimage",
  "For the benchmark: a PNG image block of about `size` bytes per call.",
  "png",
  sizedTool("One PNG image (noise) of about `size` bytes, base64 in an image block.", 64, (size) => [
    text(`${size} bytes`),
    image(noisePng(size).toString("base64"), "image/png"),
  ]),
);

/**
 * `size` characters of ASCII text in which JSON escapes about one character in five: lines of
 * quoted strings and Windows paths, indented by runs of spaces, like source code or logs.
 */
export function escapeHeavyText(size: number): string {
  const lines: string[] = [];
  let total = 0;
  for (let n = 0; total < size; n++) {
    const indent = " ".repeat(4 * (1 + (n % 4)));
    const line = `${indent}"key_${n}": "say \\"hi\\" to C:\\\\data\\\\run_${n % 97}\\\\log.txt",   // ${n % 10}\n`;
    lines.push(line);
    total += line.length;
  }
  return lines.join("").slice(0, size);
}

export const benchtext = benchEnvironment(
  "benchtext",
  "For the benchmark: `size` characters of escape-heavy text per call.",
  "escaped",
  sizedTool("Text with quotes, backslashes, newlines and runs of spaces, `size` characters.", 0, (size) => [
    text(escapeHeavyText(size)),
  ]),
);

export default [benchimage, benchtext];
