// The typed ORS client (browser + Node): one method per endpoint of the spec, SSE tool calls with
// reconnection, keep-alive pings, and one error type.
export type { CallEvent, CallToolOptions } from "./call-tool";
export { createOrsClient, type OrsClient, type OrsClientOptions, type RequestOptions } from "./client";
export { isAbortError, isOrsClientError, OrsClientError, type OrsClientErrorKind } from "./errors";
export { type KeepAliveOptions, startKeepAlive } from "./keep-alive";
export { rateLimitDelay, retryAfterMs } from "./rate-limit";
