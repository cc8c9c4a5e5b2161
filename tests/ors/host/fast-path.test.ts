// Which requests the host answers on its fast path (lib/ors/host/fast-path.ts): its base path, and the
// root ORS shapes when it serves them at the root.
import { describe, expect, it } from "vitest";
import { isOrsRequestPath } from "@/lib/ors/host/fast-path";

describe("isOrsRequestPath", () => {
  // Everything under the base path; the root ORS shapes only when asked (the app's path kinds are
  // tested in tests/security/request-policy.test.ts).
  it.each([
    ["/api/ors/health", false, true],
    ["/api/ors", false, true],
    ["/api/ors/whatever/else", false, true],
    ["/api/orsx/health", true, false],
    ["/health", false, false],
    ["/health", true, true],
    ["/math/call", true, true],
    ["/call", true, true],
    ["/splits", true, true],
    ["/splits", false, false],
    ["/s/local", true, false],
    ["/trajectories/compare", true, false],
    ["/", true, false],
  ])("%s, root shapes %s: %s", (path, rootShapes, expected) => {
    expect(isOrsRequestPath(path, "/api/ors", rootShapes)).toBe(expected);
  });
});
