// The UI benchmark's access to the app (bench-ui.ts, bench-ui-huge.ts): the app asks for its access
// token, so the server gets this one, Node's requests send it as a bearer token (the episodes both
// open through the relay), and every browser context starts with the cookie that opening the
// printed `/?token=` URL sets.
import { randomBytes } from "node:crypto";
import type { Browser } from "@playwright/test";

export const TOKEN = randomBytes(24).toString("base64url");
export const AUTH: Readonly<Record<string, string>> = { authorization: `Bearer ${TOKEN}` };

/** A fresh browser context that holds the app's token cookie (as after opening the printed URL). */
export function appContext(
  browser: Browser,
  base: string,
  options: Parameters<Browser["newContext"]>[0] = {},
) {
  const { hostname, port } = new URL(base);
  return browser.newContext({
    ...options,
    storageState: {
      origins: [],
      cookies: [
        {
          name: `ors_playground_token_${port}`,
          value: TOKEN,
          domain: hostname,
          path: "/",
          expires: -1,
          httpOnly: true,
          secure: false,
          sameSite: "Strict",
        },
      ],
    },
  });
}

/** An episode open through the app's relay to the `local` server: its session and request headers. */
export type Episode = { sid: string; headers: Record<string, string> };

/** The headers of a request in session `sid` through the relay. */
function episodeHeaders(sid: string): Record<string, string> {
  return { ...AUTH, "content-type": "application/json", "x-session-id": sid };
}

/** Opens task `index` of `env`'s train split through the relay (plain fetch from Node). */
export async function openEpisode(base: string, env: string, index = 0): Promise<Episode> {
  const relay = `${base}/api/servers/local`;
  const s = await fetch(`${relay}/create_session`, { method: "POST", headers: AUTH });
  if (!s.ok) throw new Error(`create_session answered ${s.status}`);
  const { sid } = (await s.json()) as { sid: string };
  const headers = episodeHeaders(sid);
  const c = await fetch(`${relay}/create`, {
    method: "POST",
    headers,
    body: JSON.stringify({ env_name: env, split: "train", index }),
  });
  if (!c.ok) throw new Error(`create answered ${c.status}: ${await c.text()}`);
  return { sid, headers };
}

/** Ends an episode opened by openEpisode (its failure does not matter to a figure). */
export async function closeEpisode(base: string, ep: Episode): Promise<void> {
  await fetch(`${base}/api/servers/local/delete`, { method: "POST", headers: ep.headers }).catch(() => {});
}

/** Ends the episode whose page is at `url` (…/episode/<sid>): one the page started by a click. */
export async function closeEpisodeOfPage(base: string, url: string): Promise<void> {
  const sid = /\/episode\/([^/?]+)/.exec(url)?.[1];
  if (sid) await closeEpisode(base, { sid, headers: episodeHeaders(decodeURIComponent(sid)) });
}
