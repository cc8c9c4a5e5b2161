// A minimal PNG encoder (8-bit RGB, no interlace) on node:zlib, and the shape rasterizer the
// `paint` environment draws with. No image dependencies.
import { deflateSync } from "node:zlib";

export type Shape = "circle" | "square" | "triangle";

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (ISO 3309, as PNG chunks use) of a byte range. */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, "latin1");
  out.set(data, 8);
  out.writeUInt32BE(crc32(out, 4, 8 + data.length), 8 + data.length);
  return out;
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Encodes `rgb` (width × height × 3 bytes, row-major) as a PNG file. */
export function encodePng(width: number, height: number, rgb: Uint8Array): Buffer {
  if (rgb.length !== width * height * 3) throw new Error("encodePng: pixel buffer has the wrong size");
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: truecolour
  ihdr[10] = 0; // compression
  ihdr[11] = 0; // filter method
  ihdr[12] = 0; // no interlace
  const stride = width * 3;
  const raw = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (stride + 1)] = 0; // filter type None
    raw.set(rgb.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  }
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", new Uint8Array(0)),
  ]);
}

/** Parses "#rgb" or "#rrggbb" into [r, g, b]. */
export function parseHexColor(hex: string): [number, number, number] {
  let h = hex.replace(/^#/, "");
  if (h.length === 3) h = [...h].map((c) => c + c).join("");
  const n = Number.parseInt(h, 16);
  return [(n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
}

/** True if pixel centre (x, y) of a size × size canvas lies inside the shape. */
function inside(shape: Shape, x: number, y: number, size: number): boolean {
  const px = x + 0.5;
  const py = y + 0.5;
  const m = size * 0.1; // margin
  switch (shape) {
    case "circle": {
      const c = size / 2;
      const r = size / 2 - m;
      return (px - c) ** 2 + (py - c) ** 2 <= r * r;
    }
    case "square":
      return px >= m && px <= size - m && py >= m && py <= size - m;
    case "triangle": {
      // Apex at top centre, base along the bottom margin.
      if (py < m || py > size - m) return false;
      const t = (py - m) / (size - 2 * m); // 0 at the apex, 1 at the base
      const half = t * (size / 2 - m);
      return Math.abs(px - size / 2) <= half;
    }
  }
}

/** Draws one filled shape on a white square canvas and returns the PNG. */
export function drawShapePng(shape: Shape, color: string, size: number): Buffer {
  const [r, g, b] = parseHexColor(color);
  const rgb = new Uint8Array(size * size * 3).fill(255);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      if (!inside(shape, x, y, size)) continue;
      const o = (y * size + x) * 3;
      rgb[o] = r;
      rgb[o + 1] = g;
      rgb[o + 2] = b;
    }
  }
  return encodePng(size, size, rgb);
}
