// Which requests the host answers on its fast path (lib/ors/host/fast-path.ts): its base path, and the
// root ORS shapes when it serves them at the root.
import { describe, expect, it } from "vitest";
import { isOrsRequestPath } from "@/lib/ors/host/fast-path";

describe("isOrsRequestPath", () => {
  // Everything under the base path; the root ORS shapes only when asked (the app's path kinds are
  // tested in tests/security/request-policy.test.ts).
  // For each setting of the root shapes: the paths taken, and paths left to the app.
  const CASES: [boolean, string[], string[]][] = [
    [false, ["/api/ors/health", "/api/ors", "/api/ors/whatever/else"], ["/health", "/splits"]],
    [
      true,
      ["/health", "/math/call", "/call", "/splits"],
      ["/api/orsx/health", "/s/local", "/trajectories/compare", "/"],
    ],
  ];
  for (const [root, taken, left] of CASES) {
    it.each(taken)(`takes %s (root shapes ${root})`, (path) => {
      expect(isOrsRequestPath(path, "/api/ors", root)).toBe(true);
    });
    it.each(left)(`leaves %s (root shapes ${root})`, (path) => {
      expect(isOrsRequestPath(path, "/api/ors", root)).toBe(false);
    });
  }
});
