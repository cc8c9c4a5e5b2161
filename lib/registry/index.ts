// The registry of known ORS servers, its address policy and health checks (server-only).
export {
  type AddressVerdict,
  checkServerUrl,
  isLinkLocalAddress,
  isLoopbackAddress,
  isMetadataAddress,
} from "./address-policy";
export { checkServerHealth, type ServerHealth } from "./health";
export { createOrsProbe, type OrsProbe, type OrsProbeVerdict } from "./ors-probe";
export {
  createServerRegistry,
  type FetchHandler,
  invalidServerName,
  isServerRegistryError,
  type PublicServer,
  parseServersEnv,
  type ServerEntry,
  type ServerRegistry,
  ServerRegistryError,
  type ServerSource,
  type SpawnedServers,
  toPublicServer,
} from "./registry";
