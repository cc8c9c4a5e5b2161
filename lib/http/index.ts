// The one HTTP edge of the playground's APIs (the route handlers under app/api/ use it): body readers
// that throw OrsError, the route wrapper that answers errors, and the SSE and NDJSON answers.
export {
  jsonDepth,
  MAX_JSON_DEPTH,
  parseJson,
  parseWith,
  readBody,
  readJsonBody,
  readJsonObject,
  SMALL_BODY_BYTES,
} from "./body";
export { NDJSON_HEADERS, type NdjsonWriter, ndjsonPush, ndjsonResponse, streamResponse } from "./ndjson";
export { errorAnswer, json, type NoParams, noStore, type RouteContext, route } from "./route";
export { SSE_QUEUE_LIMIT_BYTES, type SseResponseOptions, type SseWriter, sseResponse } from "./sse";
