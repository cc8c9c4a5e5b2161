import { describe, expect, it } from "vitest";
import { orsKeys, serverKeys } from "@/lib/ui/query-keys";

const startsWith = (key: readonly unknown[], prefix: readonly unknown[]) =>
  prefix.every((part, i) => Object.is(key[i], part));

describe("orsKeys", () => {
  it("nests every resource under its server, environment and split (prefix invalidation)", () => {
    const server = orsKeys.server("local");
    const env = orsKeys.env("local", "math");
    const split = orsKeys.split("local", "math", "train");
    for (const key of [
      orsKeys.envs("local"),
      orsKeys.tools("local", "math"),
      orsKeys.splits("local", "math"),
    ]) {
      expect(startsWith(key, server)).toBe(true);
    }
    expect(startsWith(orsKeys.tools("local", "math"), env)).toBe(true);
    expect(startsWith(orsKeys.numTasks("local", "math", "train"), split)).toBe(true);
    expect(
      startsWith(
        orsKeys.taskRange("local", "math", "train", 0, 100),
        orsKeys.taskPages("local", "math", "train"),
      ),
    ).toBe(true);
    expect(startsWith(orsKeys.task("local", "math", "train", 3), split)).toBe(true);
    expect(startsWith(orsKeys.prompt("local", "math", "sid-1"), orsKeys.session("local", "sid-1"))).toBe(
      true,
    );
  });

  it("keeps servers, environments and splits apart", () => {
    expect(startsWith(orsKeys.envs("second"), orsKeys.server("local"))).toBe(false);
    expect(startsWith(orsKeys.tools("local", "guess"), orsKeys.env("local", "math"))).toBe(false);
    expect(
      startsWith(orsKeys.task("local", "math", "test", 0), orsKeys.split("local", "math", "train")),
    ).toBe(false);
    expect(startsWith(orsKeys.server("local"), serverKeys.all)).toBe(false);
  });
});
