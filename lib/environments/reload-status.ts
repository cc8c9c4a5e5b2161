// What the playground says about its environments' reloads (GET /api/environments/status): what is
// watched, the last reload, and each save that did not load — its error, file and line, and which
// environments still run their previous code. Isomorphic: the server builds it, the UI reads it.
import { z } from "zod";

export const reloadErrorSchema = z.object({
  /** What went wrong, e.g. `Unexpected ";"` or `TypeError: Cannot read properties of null`. */
  message: z.string(),
  /** The file the error points at (relative to the folder the server runs in when inside it). */
  file: z.string().nullable(),
  /** 1-based line and column in `file`, when the error says. */
  line: z.number().int().positive().nullable(),
  column: z.number().int().positive().nullable(),
  /** The text of that line (at most 200 characters), when it could be read. */
  excerpt: z.string().nullable(),
  /** The saved files that were being loaded. */
  changed: z.array(z.string()),
  /** The environments that keep serving their previous code until a fix is saved. */
  environments: z.array(z.string()),
  /** When the reload failed (ms since the epoch). */
  at: z.number(),
});
export type ReloadError = z.infer<typeof reloadErrorSchema>;

export const reloadStatusSchema = z.object({
  /** What is watched for changes: `./envs.ts`, `./envs/`; empty when nothing reloads. */
  watching: z.array(z.string()),
  /** The last reload that loaded, or null. */
  last_reload: z.object({ at: z.number(), changed: z.array(z.string()) }).nullable(),
  /** Saves that did not load, at most one per part (the author's module, the built-ins). */
  errors: z.array(reloadErrorSchema),
});
export type ReloadStatus = z.infer<typeof reloadStatusSchema>;

/** The status of a source that never reloads. */
export const STATIC_RELOAD_STATUS: ReloadStatus = { watching: [], last_reload: null, errors: [] };

/** The failed reload that holds `env` on its previous code, if any. */
export function reloadErrorOf(status: ReloadStatus | undefined, env: string): ReloadError | null {
  return status?.errors.find((e) => e.environments.includes(env)) ?? null;
}

export interface ErrorLocation {
  message: string;
  file: string | null;
  line: number | null;
  column: number | null;
}

/** A path of a stack frame or a compiler message as a plain path: no `file://`, no `?query`. */
function plainPath(p: string): string {
  let out = p;
  if (out.startsWith("file://")) {
    try {
      out = decodeURIComponent(new URL(out).pathname);
    } catch {
      out = out.slice("file://".length);
    }
  }
  return out.replace(/\?.*$/, "");
}

/** The error types of the language, named in a message (our own error classes are not). */
const JS_ERRORS = new Set([
  "TypeError",
  "ReferenceError",
  "SyntaxError",
  "RangeError",
  "URIError",
  "EvalError",
]);
const TRANSFORM = /^(.+?):(\d+):(\d+): ERROR: (.+)$/m;
// `at fn (/path/x.ts:3:5)`, `at /path/x.ts:3:5`, `at file:///path/x.ts?ors-v=2:3:5`, and Node's
// `file:///path/x.mjs:3` first line of a SyntaxError.
const FRAME = /(?:\(|\s|^)((?:file:\/\/)?\/[^\s():]+?(?:\?[^\s:)]*)?):(\d+)(?::(\d+))?/gm;

/**
 * Where an error of loading environment code points: the first place in `files` (the module's
 * graph, absolute paths) named by the error or the errors it was caused by — a compiler's
 * `file:line:col: ERROR: ...` (tsx/esbuild syntax errors) or a stack frame (an error thrown while
 * the module ran, a defineEnvironment error at its call) — else the first file, without a line.
 */
export function locateLoadError(
  error: unknown,
  files: readonly string[],
  /**
   * Maps a stack frame's position in the code as it ran (a file URL as the frame names it, 1-based
   * line and column) to the author's source, when the frame is not mapped already; null: as it is.
   */
  original?: (url: string, line: number, column: number) => { line: number; column: number } | null,
): ErrorLocation {
  const known = new Set(files);
  const chain: unknown[] = [];
  for (
    let e: unknown = error;
    e && chain.length < 8 && !chain.includes(e);
    e = (e as { cause?: unknown }).cause
  )
    chain.push(e);
  const root = (chain.at(-1) ?? error) as { name?: unknown; message?: unknown; stack?: unknown };
  const rootMessage = typeof root?.message === "string" ? root.message : String(error);
  for (const e of chain) {
    const message = typeof (e as Error).message === "string" ? (e as Error).message : "";
    const t = TRANSFORM.exec(message);
    if (t && known.has(plainPath(t[1]!)))
      return { message: t[4]!, file: plainPath(t[1]!), line: Number(t[2]), column: Number(t[3]) + 1 };
  }
  const name = typeof root?.name === "string" && JS_ERRORS.has(root.name) ? `${root.name}: ` : "";
  const message = rootMessage.startsWith(name) ? rootMessage : `${name}${rootMessage}`;
  for (const e of chain) {
    const stack = typeof (e as Error).stack === "string" ? (e as Error).stack! : "";
    // A frame with a column first: Node may head the stack with `file:line` and the line's text.
    let lineOnly: ErrorLocation | null = null;
    for (const m of stack.matchAll(FRAME)) {
      const file = plainPath(m[1]!);
      if (!known.has(file)) continue;
      if (m[3]) {
        const at = original?.(m[1]!, Number(m[2]), Number(m[3])) ?? {
          line: Number(m[2]),
          column: Number(m[3]),
        };
        return { message, file, ...at };
      }
      lineOnly ??= { message, file, line: Number(m[2]), column: null };
    }
    if (lineOnly) return lineOnly;
  }
  return { message, file: files[0] ?? null, line: null, column: null };
}
