// The benchmark's own environment (`npm run bench -- --mode image`): `png` returns one PNG image
// block of about `size` bytes per step (random pixels, so it does not compress), the image-heavy
// case of scripts/BENCH.md. Served next to the built-ins by the spawned server (`serve --env`).
import { deflateSync } from "node:zlib";
import { z } from "zod";
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

// Rendering is the environment's cost, not the host's: each size is made once.
const cache = new Map<number, string>();

export const benchimage = defineEnvironment({
  name: "benchimage",
  description: "For the benchmark: a PNG image block of about `size` bytes per call.",
  splits: ["train"],
  listTasks: () => [{ id: 0 }],
  getPrompt: () => "Call png.",
  tools: {
    png: defineTool({
      description: "One PNG image (noise) of about `size` bytes, base64 in an image block.",
      input: z.object({
        size: z
          .number()
          .int()
          .min(64)
          .max(8 * 1024 * 1024)
          .default(1024 * 1024),
      }),
      run: ({ size }) => {
        let data = cache.get(size);
        if (data === undefined) {
          data = noisePng(size).toString("base64");
          cache.set(size, data);
        }
        return { blocks: [text(`${size} bytes`), image(data, "image/png")], reward: 0, finished: false };
      },
    }),
  },
});

export default benchimage;
