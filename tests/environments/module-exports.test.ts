// Which environments an author's module exports, how they sit beside the built-ins (order, name
// clashes), and how ORS_ENVS* read: each mistake is an error that names the module and says what to do.
import { describe, expect, it } from "vitest";
import {
  EnvironmentModuleError,
  environmentsOfModule,
  settleExports,
} from "@/lib/environments/module-exports";
import { runtimeSourceOptionsFromEnv } from "@/lib/environments/runtime-source";
import {
  combineEnvironments,
  describeEnvironmentSet,
  staticEnvironmentSource,
} from "@/lib/environments/source";
import { defineEnvironment, defineTool, text } from "@/lib/ors/sdk";

function env(name: string) {
  return defineEnvironment({
    name,
    splits: ["test"],
    listTasks: () => [{ n: 1 }],
    getPrompt: () => name,
    tools: { go: defineTool({ description: "go", run: () => ({ blocks: [text("ok")] }) }) },
  });
}
const a = env("alpha");
const b = env("beta");

describe("environmentsOfModule", () => {
  it("takes the default export: one environment, or an array", () => {
    expect(environmentsOfModule({ default: a }, "./envs.ts")).toEqual([a]);
    expect(environmentsOfModule({ default: [b, a], helper: 1 }, "./envs.ts")).toEqual([b, a]);
  });

  it("else every named export that is an environment or an array of them, in name order, once each", () => {
    expect(environmentsOfModule({ zeta: a, beta: b, environments: [a, b], VERSION: "1" }, "./m.ts")).toEqual([
      b,
      a,
    ]);
  });

  it("takes an environment exported as a promise (defineMcpEnvironment's) once it settles", async () => {
    const settled = await settleExports({ default: Promise.resolve(a), VERSION: "1" });
    expect(environmentsOfModule(settled, "./envs.ts")).toEqual([a]);
    await expect(settleExports({ default: Promise.reject(new Error("no server")) })).rejects.toThrow(
      "no server",
    );
  });

  it("reads a CommonJS module's exports object behind `default`", () => {
    expect(environmentsOfModule({ default: { alpha: a, other: 3 } }, "./m.cjs")).toEqual([a]);
  });

  it("says what is wrong, naming the module", () => {
    const err = (ns: Record<string, unknown>) => {
      try {
        environmentsOfModule(ns, "./envs.ts");
      } catch (e) {
        expect(e).toBeInstanceOf(EnvironmentModuleError);
        return (e as Error).message;
      }
      throw new Error("no error");
    };
    expect(err({ helper: () => 1 })).toMatch(
      /^\.\/envs\.ts exports no environments: export environments made with defineEnvironment/,
    );
    expect(err({ default: [a, { name: "x" }] })).toMatch(
      /^\.\/envs\.ts: the default export's item 1 is an object, not an environment/,
    );
    expect(err({ default: [] })).toMatch(/default export is an empty array/);
    expect(err({ default: "math" })).toMatch(/default export is a string, not an environment/);
    expect(err({ default: defineTool({ description: "t", run: () => ({ blocks: [] }) }) })).toMatch(
      /default export is an object of kind "ors-tool", not an environment/,
    );
  });
});

describe("combineEnvironments", () => {
  const builtins = [env("math"), env("guess")];

  it("puts the module's environments first (the default of /create), then the built-ins, with their origin", () => {
    const set = combineEnvironments(builtins, { path: "./envs.ts", environments: [a, b] });
    expect(set.environments.map((e) => e.name)).toEqual(["alpha", "beta", "math", "guess"]);
    expect(set.origins.get("alpha")).toEqual({ kind: "module", path: "./envs.ts" });
    expect(set.origins.get("math")).toEqual({ kind: "builtin" });
    const shown = describeEnvironmentSet(set);
    expect(shown.builtin).toEqual(["math", "guess"]);
    expect([...shown.modules]).toEqual([["./envs.ts", ["alpha", "beta"]]]);
  });

  it("refuses a module environment named like a built-in, saying which and what to do", () => {
    expect(() => combineEnvironments(builtins, { path: "./envs.ts", environments: [env("Math")] })).toThrow(
      './envs.ts: environment "Math" has the name of the built-in environment "math" (names are compared without case): rename it, or host your module alone (ORS_ENVS_ONLY=1)',
    );
    expect(() => combineEnvironments(builtins, { path: "./envs.ts", environments: [env("guess")] })).toThrow(
      /environment "guess" has the name of the built-in environment "guess": rename it/,
    );
  });

  it("refuses two environments of the module with one name", () => {
    expect(() => combineEnvironments([], { path: "./envs.ts", environments: [a, env("ALPHA")] })).toThrow(
      /^\.\/envs\.ts: two environments named "ALPHA" and "alpha"/,
    );
  });

  it("a static source never reloads", () => {
    const s = staticEnvironmentSource(builtins);
    expect(s.current().environments).toEqual(builtins);
    expect(s.watching).toEqual([]);
  });
});

describe("runtimeSourceOptionsFromEnv", () => {
  it("hosts a module beside the built-ins in the playground, alone in serve, watched unless ORS_ENVS_WATCH=0", () => {
    expect(runtimeSourceOptionsFromEnv({ ORS_ENVS: "./e.ts" }, { dev: false })).toEqual({
      module: "./e.ts",
      builtins: true,
      watchBuiltins: false,
      watchModule: true,
    });
    expect(
      runtimeSourceOptionsFromEnv({ ORS_ENVS: "./e.ts" }, { dev: false, moduleOnly: true }).builtins,
    ).toBe(false);
    expect(
      runtimeSourceOptionsFromEnv({ ORS_ENVS: "./e.ts", ORS_ENVS_ONLY: "1" }, { dev: true }),
    ).toMatchObject({
      builtins: false,
      watchBuiltins: true,
    });
    expect(
      runtimeSourceOptionsFromEnv(
        { ORS_ENVS: "./e.ts", ORS_ENVS_ONLY: "0" },
        { dev: false, moduleOnly: true },
      ).builtins,
    ).toBe(true);
    expect(
      runtimeSourceOptionsFromEnv({ ORS_ENVS: "./e.ts", ORS_ENVS_WATCH: "0" }, { dev: false }).watchModule,
    ).toBe(false);
    expect(runtimeSourceOptionsFromEnv({}, { dev: true })).toEqual({
      module: null,
      builtins: true,
      watchBuiltins: true,
      watchModule: false,
    });
  });

  it("refuses values it does not know", () => {
    expect(() =>
      runtimeSourceOptionsFromEnv({ ORS_ENVS: "x", ORS_ENVS_ONLY: "yes" }, { dev: false }),
    ).toThrow('ORS_ENVS_ONLY must be 1 or 0, got "yes"');
    expect(() => runtimeSourceOptionsFromEnv({ ORS_ENVS_ONLY: "1" }, { dev: false })).toThrow(
      /needs ORS_ENVS/,
    );
    expect(() => runtimeSourceOptionsFromEnv({ ORS_ENVS_WATCH: "no" }, { dev: false })).toThrow(
      /ORS_ENVS_WATCH/,
    );
  });
});
