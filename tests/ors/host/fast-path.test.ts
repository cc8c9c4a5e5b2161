import { describe, expect, it } from "vitest";
import { isOrsRequestPath } from "@/lib/ors/host/fast-path";
import { appPathKind } from "@/lib/security/policy-config";

describe("isOrsRequestPath", () => {
  it("takes everything under the base path, and the root ORS shapes only when asked", () => {
    expect(isOrsRequestPath("/api/ors/health", "/api/ors", false)).toBe(true);
    expect(isOrsRequestPath("/api/ors", "/api/ors", false)).toBe(true);
    expect(isOrsRequestPath("/api/ors/whatever/else", "/api/ors", false)).toBe(true);
    expect(isOrsRequestPath("/api/orsx/health", "/api/ors", true)).toBe(false);
    expect(isOrsRequestPath("/health", "/api/ors", false)).toBe(false);
    expect(isOrsRequestPath("/health", "/api/ors", true)).toBe(true);
    expect(isOrsRequestPath("/math/call", "/api/ors", true)).toBe(true);
    expect(isOrsRequestPath("/call", "/api/ors", true)).toBe(true);
    expect(isOrsRequestPath("/splits", "/api/ors", true)).toBe(true);
    expect(isOrsRequestPath("/splits", "/api/ors", false)).toBe(false);
    expect(isOrsRequestPath("/s/local", "/api/ors", true)).toBe(false);
    expect(isOrsRequestPath("/trajectories/compare", "/api/ors", true)).toBe(false);
    expect(isOrsRequestPath("/", "/api/ors", true)).toBe(false);
  });
});

describe("the app's path kinds", () => {
  it("take the bare ORS paths as ORS (no access token; ORS_API_KEYS rules), the pages as pages", () => {
    for (const p of [
      "/splits",
      "/tasks",
      "/task",
      "/task_range",
      "/num_tasks",
      "/tools",
      "/prompt",
      "/task_tools",
      "/call",
    ])
      expect(appPathKind(p)).toBe("ors");
    for (const p of ["/", "/live", "/trajectories", "/s/local/e/math"]) expect(appPathKind(p)).toBe("page");
  });
});
