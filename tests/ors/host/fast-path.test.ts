import { describe, expect, it } from "vitest";
import { isOrsRequestPath } from "@/lib/ors/host/fast-path";

describe("isOrsRequestPath", () => {
  it("takes everything under the base path, and the root ORS shapes only when asked", () => {
    expect(isOrsRequestPath("/api/ors/health", "/api/ors", false)).toBe(true);
    expect(isOrsRequestPath("/api/ors", "/api/ors", false)).toBe(true);
    expect(isOrsRequestPath("/api/ors/whatever/else", "/api/ors", false)).toBe(true);
    expect(isOrsRequestPath("/api/orsx/health", "/api/ors", true)).toBe(false);
    expect(isOrsRequestPath("/health", "/api/ors", false)).toBe(false);
    expect(isOrsRequestPath("/health", "/api/ors", true)).toBe(true);
    expect(isOrsRequestPath("/math/call", "/api/ors", true)).toBe(true);
    expect(isOrsRequestPath("/s/local", "/api/ors", true)).toBe(false);
    expect(isOrsRequestPath("/trajectories/compare", "/api/ors", true)).toBe(false);
    expect(isOrsRequestPath("/", "/api/ors", true)).toBe(false);
  });
});
