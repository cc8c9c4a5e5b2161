// The recording relay (server-only): forwards plain ORS to known servers and publishes what passes.
export {
  createRelayEvents,
  type RelayEvent,
  type RelayEvents,
  type RelayEventType,
  type RelayListener,
  type RelayTask,
} from "./events";
export {
  createRelay,
  mapRedirect,
  orsPathFromUrl,
  type Relay,
  type RelayOptions,
} from "./relay";
