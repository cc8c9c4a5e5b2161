// The built-in example environments, served by the app's host (`/api/ors`) and by the standalone
// server (`scripts/serve.ts`). They are only ever imported by server code, but deliberately do not
// `import "server-only"`: that package throws under plain node (tsx, for `scripts/serve.ts`) unless
// node runs with `--conditions=react-server`.
import type { AnyEnvironment } from "@/lib/ors/sdk";
import { bigoutput } from "./bigoutput";
import { bigsplit } from "./bigsplit";
import { brokensetup } from "./brokensetup";
import { dice } from "./dice";
import { guessEnv } from "./guess";
import { math } from "./math";
import { paint } from "./paint";
import { schemas } from "./schemas";
import { secret } from "./secret";
import { slow } from "./slow";
import { tasktools } from "./tasktools";

export {
  bigoutput,
  bigsplit,
  brokensetup,
  dice,
  guessEnv as guess,
  math,
  paint,
  schemas,
  secret,
  slow,
  tasktools,
};

/** Every built-in environment; `math` first (the default environment of `/create`). */
export const builtinEnvironments: AnyEnvironment[] = [
  math,
  guessEnv,
  paint,
  tasktools,
  bigoutput,
  slow,
  secret,
  brokensetup,
  bigsplit,
  dice,
  schemas,
];
