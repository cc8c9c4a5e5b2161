// An optional fast path for ORS requests inside a Next.js server process: requests whose path is
// an ORS shape (under the base path, and optionally the root shapes of next.config.mjs's rewrites)
// go straight to the node:http adapter, skipping Next's request pipeline (~1–2 ms of CPU per
// request, more than the whole reference server spends on an episode). Everything else is untouched.
import { type IncomingMessage, Server, type ServerResponse } from "node:http";
import { parseOrsPath } from "../protocol/paths";
import { type OrsHandler, pathOf } from "./handler";
import { createNodeListener } from "./node-adapter";

export interface OrsFastPathOptions {
  /** The host to serve (called once, at the first ORS request). */
  handler: () => OrsHandler;
  /** Requests under this prefix are ORS (e.g. `/api/ors`); unknown paths there get the host's 404. */
  basePath: string;
  /** Also take the ORS endpoint shapes at the root (`/health`, `/math/call`, ...). */
  root: boolean;
}

/** Whether a request path belongs to the ORS host under these options. */
export function isOrsRequestPath(path: string, basePath: string, root: boolean): boolean {
  if (basePath && (path === basePath || path.startsWith(`${basePath}/`))) return true;
  return root && parseOrsPath(path).kind !== "unknown";
}

const INSTALLED = Symbol.for("ors-playground.ors-fast-path");

type Emit = Server["emit"];

/**
 * Routes ORS requests of every `http.Server` in this process to the host before any other
 * `request` listener sees them. Returns an uninstall function. Installing twice is a no-op.
 */
export function installOrsFastPath(options: OrsFastPathOptions): () => void {
  const g = globalThis as typeof globalThis & { [INSTALLED]?: () => void };
  if (g[INSTALLED]) return g[INSTALLED];
  const original: Emit = Server.prototype.emit;
  let listener: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  const patched = function (this: Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "request") {
      const req = args[0] as IncomingMessage;
      if (isOrsRequestPath(pathOf(req.url ?? "/"), options.basePath, options.root)) {
        listener ??= createNodeListener(options.handler());
        listener(req, args[1] as ServerResponse);
        return true;
      }
    }
    return (original as (this: Server, event: string | symbol, ...a: unknown[]) => boolean).call(
      this,
      event,
      ...args,
    );
  } as Emit;
  Server.prototype.emit = patched;
  const uninstall = () => {
    if (Server.prototype.emit === patched) Server.prototype.emit = original;
    delete g[INSTALLED];
  };
  g[INSTALLED] = uninstall;
  return uninstall;
}
