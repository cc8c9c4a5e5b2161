// The ORS host (spec: ors-http-api.txt, ors-sse.txt, ors-sessions-episodes.txt) as a fetch handler,
// plus its options and the node:http adapter. No Next.js imports: runs under plain node too.

export { isOrsRequestPath } from "./fast-path";
export {
  createOrsHandler,
  type IncomingOrsRequest,
  type OrsHandler,
  type OrsHost,
  type OrsHostStats,
} from "./handler";
export {
  createNodeListener,
  type Listening,
  listenHttp,
  type NodeListenerOptions,
  serveNode,
} from "./node-adapter";
export {
  CLIENT_SILENCE_LIMIT_MS,
  DEFAULT_HOST_OPTIONS,
  HOST_ENV_VARS,
  hostOptionsFromEnv,
  type OrsHostOptions,
} from "./options";
export type { OrsReply, SseSink } from "./reply";
export { RELAY_ONLY_HEADER } from "./routing";
