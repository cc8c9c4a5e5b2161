// The app's server entry (production and dev): the request policy on every request, the ORS fast
// path, Next for the rest. For commands that start the playground (lib/app-server/main.ts, a CLI):
// under plain node, call allowServerOnlyUnderNode() (./server-only-hook) before importing this.
import "server-only";

export {
  type AppServer,
  type AppServerOptions,
  FAST_PATH_HEADER,
  RELAY_FAST_PATH_HEADER,
  startAppServer,
} from "./app-server";
export { APP_SERVER_USAGE, type AppServerArgs, parseAppServerArgs } from "./args";
