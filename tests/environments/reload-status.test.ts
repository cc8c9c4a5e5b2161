// Where a failed reload points (lib/environments/reload-status.ts): real errors — esbuild's syntax
// errors as tsx reports them, errors thrown while code ran with the file in their stack (as Node
// and tsx's source maps write it, file URLs with the loader's ?ors-v query included) — located in
// the module's files, and never in a file outside them (the SDK's own frames).
import vm from "node:vm";
import { transform } from "esbuild";
import { describe, expect, it } from "vitest";
import { EnvironmentModuleError } from "@/lib/environments/module-exports";
import { locateLoadError, reloadErrorOf, reloadStatusSchema } from "@/lib/environments/reload-status";

const ENVS = "/srv/author/envs.ts";
const GRADE = "/srv/author/grade.ts";

/** The error `code` throws when run as the file `filename` (a real V8 stack naming it). */
function thrownBy(code: string, filename: string): Error {
  try {
    vm.runInThisContext(code, { filename });
  } catch (e) {
    return e as Error;
  }
  throw new Error("did not throw");
}

describe("locateLoadError", () => {
  it("a syntax error: esbuild's file:line:column (0-based column made 1-based) and message", async () => {
    const err = await transform("const a = 1;\nexport default [;\n", { loader: "ts", sourcefile: ENVS }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    // As the source wraps it: our error, caused by the loader's, caused by esbuild's.
    const wrapped = new EnvironmentModuleError(`could not load ./envs.ts: ${(err as Error).message}`, {
      cause: new Error((err as Error).message, { cause: err }),
    });
    expect(locateLoadError(wrapped, [ENVS, GRADE])).toEqual({
      message: 'Unexpected ";"',
      file: ENVS,
      line: 2,
      column: 17,
    });
  });

  it("an error thrown while a file of the module ran: its stack frame, the error's type named", () => {
    const err = thrownBy("const t = 1;\nconst boom = (null).x;\n", GRADE);
    expect(
      locateLoadError(new EnvironmentModuleError("could not load", { cause: err }), [ENVS, GRADE]),
    ).toEqual({
      message: "TypeError: Cannot read properties of null (reading 'x')",
      file: GRADE,
      line: 2,
      column: 21,
    });
  });

  it("a file URL with the loader's version query; frames outside the module's files are skipped", () => {
    const sdkFrame = thrownBy(
      'throw new Error("environment \\"echo\\": has no splits");',
      "/pkg/lib/ors/sdk/define.ts",
    );
    // The SDK's frame first, then the author's call (as a defineEnvironment error's stack reads).
    sdkFrame.stack = `${sdkFrame.stack}\n    at file://${ENVS}?ors-v=12:6:16`;
    expect(locateLoadError(sdkFrame, [ENVS])).toEqual({
      message: 'environment "echo": has no splits',
      file: ENVS,
      line: 6,
      column: 16,
    });
  });

  it("a frame in compiled code is mapped to the source by the given mapper; a mapped one is kept", () => {
    const err = new TypeError("x is not a function");
    err.stack = `TypeError: x is not a function\n    at file://${GRADE}?ors-v=3:1:32`;
    const seen: unknown[] = [];
    const original = (url: string, line: number, column: number) => {
      seen.push([url, line, column]);
      return url.includes("?ors-v=") ? { line: 4, column: 43 } : null;
    };
    expect(locateLoadError(err, [ENVS, GRADE], original)).toMatchObject({ file: GRADE, line: 4, column: 43 });
    expect(seen).toEqual([[`file://${GRADE}?ors-v=3`, 1, 32]]);
    err.stack = `TypeError: x is not a function\n    at <anonymous> (${GRADE}:4:43)`;
    expect(locateLoadError(err, [ENVS, GRADE], original)).toMatchObject({ line: 4, column: 43 });
  });

  it("an error that names no file of the module: the module, without a line", () => {
    const err = new EnvironmentModuleError("./envs.ts exports no environments: export environments ...");
    err.stack =
      "EnvironmentModuleError: ./envs.ts exports no environments\n    at environmentsOfModule (/pkg/lib/environments/module-exports.ts:55:11)";
    expect(locateLoadError(err, [ENVS])).toEqual({
      message: "./envs.ts exports no environments: export environments ...",
      file: ENVS,
      line: null,
      column: null,
    });
  });
});

describe("the status the UI reads", () => {
  it("parses, and finds the error that holds an environment on its previous code", () => {
    const status = reloadStatusSchema.parse({
      watching: ["./envs.ts"],
      last_reload: null,
      errors: [
        {
          message: 'Unexpected ";"',
          file: "./envs.ts",
          line: 2,
          column: 17,
          excerpt: "export default [;",
          changed: ["./envs.ts"],
          environments: ["echo", "counter"],
          at: 1,
        },
      ],
    });
    expect(reloadErrorOf(status, "counter")?.line).toBe(2);
    expect(reloadErrorOf(status, "math")).toBeNull();
    expect(reloadErrorOf(undefined, "echo")).toBeNull();
  });
});
