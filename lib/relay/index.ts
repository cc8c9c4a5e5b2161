// The recording relay (server-only): forwards plain ORS to known servers and publishes what passes.
export {
  emitRelayEvent,
  hasRelayListeners,
  type RelayEvent,
  type RelayEventType,
  type RelayListener,
  type RelayTask,
  subscribeRelayEvents,
} from "./events";
export {
  createRelay,
  detailResponse,
  mapRedirect,
  orsPathFromUrl,
  type Relay,
  type RelayOptions,
  refusedOrigin,
} from "./relay";
