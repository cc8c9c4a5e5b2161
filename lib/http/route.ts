// The wrapper every route handler of the playground's APIs goes through: it hands the handler its
// route parameters, answers any OrsError (and its subclasses) as its `{detail}` answer, a request
// whose client went away quietly, and anything else as a logged 500 whose body says nothing more.
import "server-only";
import { errorResponse, INTERNAL_ERROR_DETAIL, isOrsError, toResponse } from "@/lib/ors/protocol";

/** Answers about stored or live data: never cached. */
export const noStore: Readonly<Record<string, string>> = { "Cache-Control": "no-store" };

/** What Next hands a route handler beside the request. */
export interface RouteContext<P> {
  params: Promise<P>;
}

/** A route without parameters in its path. */
export type NoParams = Record<string, never>;

/** `value` as a JSON answer, not cached. */
export function json(value: unknown, init: { status?: number; headers?: HeadersInit } = {}): Response {
  const headers = new Headers(init.headers);
  if (!headers.has("cache-control")) headers.set("cache-control", "no-store");
  return Response.json(value, { status: init.status ?? 200, headers });
}

/** The status of an answer nobody reads (the client closed the request first), as nginx logs it. */
const CLIENT_GONE = 499;

/** The answer to an error a handler threw (exported for handlers that answer inside a stream). */
export function errorAnswer(err: unknown, req: Request): Response {
  if (isOrsError(err)) return toResponse(err);
  // An abandoned request (a paused model turn, a closed tab) is no failure of the app.
  if (req.signal.aborted) return errorResponse(CLIENT_GONE, "the client went away");
  console.error(`${req.method} ${new URL(req.url).pathname}: unexpected failure:`, err);
  return errorResponse(500, INTERNAL_ERROR_DETAIL);
}

/**
 * A route handler: `handler` gets the request and its resolved route parameters and returns the
 * answer; whatever it throws is answered by `errorAnswer`.
 *
 * @example export const GET = route<{ id: string }>(async (req, { id }) => json(await find(id)));
 */
export function route<P = NoParams>(
  handler: (req: Request, params: P) => Response | Promise<Response>,
): (req: Request, ctx?: RouteContext<P>) => Promise<Response> {
  return async (req, ctx) => {
    try {
      // A route without parameters may be called with none (its tests do).
      return await handler(req, ((await ctx?.params) ?? {}) as P);
    } catch (err) {
      return errorAnswer(err, req);
    }
  };
}
