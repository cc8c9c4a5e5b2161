import { inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { crc32, drawShapePng, encodePng, PNG_SIGNATURE, type Shape } from "@/envs/paint/png";

type Chunk = { type: string; data: Buffer };

/** A strict little PNG reader: checks the signature, every CRC, and the chunk order. */
function readPng(png: Buffer): { width: number; height: number; chunks: Chunk[]; pixels: Buffer } {
  expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
  const chunks: Chunk[] = [];
  let o = 8;
  while (o < png.length) {
    const len = png.readUInt32BE(o);
    const type = png.toString("latin1", o + 4, o + 8);
    const data = png.subarray(o + 8, o + 8 + len);
    expect(png.readUInt32BE(o + 8 + len), `CRC of ${type}`).toBe(crc32(png, o + 4, o + 8 + len));
    chunks.push({ type, data });
    o += 12 + len;
  }
  expect(o).toBe(png.length);
  expect(chunks[0]!.type).toBe("IHDR");
  expect(chunks.at(-1)!.type).toBe("IEND");
  const ihdr = chunks[0]!.data;
  expect(ihdr.length).toBe(13);
  const width = ihdr.readUInt32BE(0);
  const height = ihdr.readUInt32BE(4);
  expect([...ihdr.subarray(8)]).toEqual([8, 2, 0, 0, 0]);
  const raw = inflateSync(Buffer.concat(chunks.filter((c) => c.type === "IDAT").map((c) => c.data)));
  expect(raw.length).toBe((width * 3 + 1) * height);
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    expect(raw[y * (width * 3 + 1)]).toBe(0);
    raw.copy(pixels, y * width * 3, y * (width * 3 + 1) + 1, (y + 1) * (width * 3 + 1));
  }
  return { width, height, chunks, pixels };
}

describe("png", () => {
  it("computes the standard CRC-32", () => {
    expect(crc32(Buffer.from("123456789"))).toBe(0xcbf43926);
    expect(crc32(Buffer.from("IEND"))).toBe(0xae426082);
  });

  it("encodes pixels that decode back exactly", () => {
    const rgb = new Uint8Array(5 * 3 * 3).map((_, i) => (i * 37) & 0xff);
    const { width, height, pixels } = readPng(encodePng(5, 3, rgb));
    expect([width, height]).toEqual([5, 3]);
    expect([...pixels]).toEqual([...rgb]);
  });

  it("draws each shape in the colour asked, on white", () => {
    const filled: Record<string, number> = {};
    for (const shape of ["circle", "square", "triangle"] as Shape[]) {
      const { width, pixels } = readPng(drawShapePng(shape, "#ff0000", 40));
      expect(width).toBe(40);
      let red = 0;
      for (let i = 0; i < pixels.length; i += 3) {
        const px = [pixels[i], pixels[i + 1], pixels[i + 2]];
        if (px.join() === "255,0,0") red++;
        else expect(px).toEqual([255, 255, 255]);
      }
      // Centre pixel is inside every shape; the corner is outside every shape.
      const centre = (20 * 40 + 20) * 3;
      expect(pixels[centre + 1]).toBe(0);
      expect(pixels[1]).toBe(255);
      filled[shape] = red;
    }
    // Areas: square (0.64) > circle (~0.50) > triangle (0.32) of the canvas.
    expect(filled.square!).toBeGreaterThan(filled.circle!);
    expect(filled.circle!).toBeGreaterThan(filled.triangle!);
  });
});
