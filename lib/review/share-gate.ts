// What a share link's player may ask (docs/review.md "Share links"): the link's own state, joining
// and moving to the next task, and the few requests the episode page makes for the player's own
// episodes — the relay for the session's tools, calls, pings and its end, the session's record and
// its live feed. Everything else under the link is refused (403), as the request policy refuses any
// other page and API to a request without the access token that carries a share link's cookie.
import "server-only";
import { sessionTrajectoryResponse, trajectoryEventsResponse } from "@/lib/episodes/http";
import type { LiveFeeds } from "@/lib/episodes/live";
import type { Recorder } from "@/lib/episodes/recorder";
import { OrsError, parseOrsPath } from "@/lib/ors/protocol";
import type { Relay } from "@/lib/relay";
import type { ShareLink } from "@/lib/store/types";
import type { TrajectorySummary } from "@/lib/trajectory/schema";
import { isShareRun, openShare, type ShareDeps } from "./share";

export interface GateDeps extends ShareDeps {
  recorder: Recorder;
  relay: Pick<Relay, "handle">;
  live: LiveFeeds;
}

/** The headers of a player's request that reach the relay: what the episode page sends, nothing else. */
const PASSED_HEADERS = ["x-session-id", "accept", "content-type", "x-playground-call-id"];

/** The ORS endpoints a player's page uses: its session's tools, calls, pings and end. */
const PLAYER_ENV_ENDPOINTS = new Set(["tools", "task_tools", "call"]);
const PLAYER_ROOT_ENDPOINTS = new Set(["ping", "delete", "delete_session"]);

const refused = (what: string) =>
  new OrsError(403, `a share link plays its own tasks only: ${what} is not one of its requests`);

/** Whether a recorded episode is one of this link's players' (its run is theirs). */
async function ownEpisode(d: GateDeps, share: ShareLink, t: TrajectorySummary | null): Promise<boolean> {
  if (!t?.run || t.server !== share.server) return false;
  const run = await d.store.getRun(t.run.id);
  return !!run && isShareRun(run, share.token);
}

/** `/api/play/<token>/servers/<server>/<ORS path>`: the relay, for the player's own session only. */
export async function gateRelay(
  d: GateDeps,
  req: Request,
  token: string,
  server: string,
  orsPath: string,
): Promise<Response> {
  const share = await openShare(d.store, token);
  if (server !== share.server) throw refused(`server "${server}"`);
  const route = parseOrsPath(orsPath);
  const allowed =
    (route.kind === "env" && route.env === share.env && PLAYER_ENV_ENDPOINTS.has(route.endpoint)) ||
    (route.kind === "root" && PLAYER_ROOT_ENDPOINTS.has(route.endpoint));
  if (!allowed) throw refused(`${req.method} ${orsPath}`);
  const sid = req.headers.get("x-session-id");
  // The environment's tools need no session; everything else is the player's own session's.
  if (!(route.kind === "env" && route.endpoint === "tools")) {
    if (!sid) throw new OrsError(400, "X-Session-ID: the session of the episode is needed");
    await d.recorder.idle();
    if (!(await ownEpisode(d, share, await d.store.findBySession(server, sid))))
      throw refused(`session "${sid.slice(0, 80)}"`);
  }
  const headers = new Headers();
  for (const name of PASSED_HEADERS) {
    const v = req.headers.get(name);
    if (v !== null) headers.set(name, v);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const forwarded = new Request(req.url, {
    method: req.method,
    headers,
    body: hasBody ? req.body : null,
    signal: req.signal,
    ...(hasBody ? { duplex: "half" } : {}),
  } as RequestInit);
  return d.relay.handle(forwarded, server, orsPath);
}

/** `/api/play/<token>/trajectories/by-session/<server>/<sid>`: the player's episode's record. */
export async function gateSessionTrajectory(
  d: GateDeps,
  token: string,
  server: string,
  sid: string,
): Promise<Response> {
  const share = await openShare(d.store, token);
  await d.recorder.idle();
  if (!(await ownEpisode(d, share, await d.store.findBySession(server, sid))))
    throw refused(`the record of session "${sid.slice(0, 80)}"`);
  return sessionTrajectoryResponse(d, server, sid);
}

/** `/api/play/<token>/trajectories/<id>/events`: the player's episode's live feed. */
export async function gateTrajectoryEvents(
  d: GateDeps,
  req: Request,
  token: string,
  id: string,
): Promise<Response> {
  const share = await openShare(d.store, token);
  if (!(await ownEpisode(d, share, await d.store.summary(id))))
    throw refused(`the feed of episode "${id.slice(0, 80)}"`);
  return trajectoryEventsResponse(req, d, id);
}
