// A small seeded PRNG (mulberry32) and an integer hash, so generated task sets are the same on
// every machine and every run.

/** Returns a function yielding floats in [0, 1), fully determined by `seed`. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An integer in [min, max] drawn from `rand`. */
export function randomInt(rand: () => number, min: number, max: number): number {
  return min + Math.floor(rand() * (max - min + 1));
}

/** A 32-bit avalanche hash of an integer (for tasks derived from their index). */
export function hashInt(n: number, salt = 0): number {
  let h = (Math.imul(n ^ salt, 0x9e3779b1) + 0x7f4a7c15) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}
