// The last step of `npm pack` (package.json "prepack", after the production build and the SDK):
// records the production build's external-package aliases, which npm does not pack, so that the
// installed CLI can link them again (lib/cli/next-externals.ts).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { recordNextExternals } from "@/lib/cli/next-externals";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const recorded = recordNextExternals(path.join(root, process.env.NEXT_DIST_DIR || ".next"));
console.log(`external packages of the build: ${Object.values(recorded).join(", ") || "none"}`);
