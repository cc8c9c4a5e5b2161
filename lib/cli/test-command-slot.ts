// Where the CLI finds the `test` command (golden episodes replayed as regression tests). It is not
// part of this build yet: the CLI says so, with exit code 2, instead of failing obscurely.
import type { CommandIo } from "./io";

export const TEST_UNAVAILABLE =
  "ors-playground: the `test` command (golden episodes as regression tests) is not available in this version";

export const testCommand: ((argv: readonly string[], io: CommandIo) => Promise<number>) | null = null;
