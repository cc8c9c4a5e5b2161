// Who may use the app's pages and APIs (docs/security.md "A token by default"): the access token the
// server entry requires, from PLAYGROUND_TOKEN or generated at each start, or none at all with
// PLAYGROUND_AUTH=none; and what the app says about it when it starts.
import "server-only";
import { newSecret } from "./listen";
import { AUTH_VAR, authModeOf } from "./policy-config";

type Env = Record<string, string | undefined>;

export interface Access {
  /** The token pages and APIs require; null with PLAYGROUND_AUTH=none. */
  token: string | null;
  /** Generated at this start (so it changes with the next one). */
  generated: boolean;
}

/** Below this many characters a chosen token is guessable, and the app says so at start. */
export const SHORT_TOKEN = 16;

/**
 * The access of this start: the token given (a CLI option), else PLAYGROUND_TOKEN, else a fresh
 * one; none with PLAYGROUND_AUTH=none. Throws on a PLAYGROUND_AUTH that is neither, or on both
 * a token and PLAYGROUND_AUTH=none.
 */
export function resolveAccess(env: Env, given?: string): Access {
  if (authModeOf(env) === "none") {
    if (given?.trim())
      throw new Error(`${AUTH_VAR}=none and an access token were both given: which one was meant?`);
    return { token: null, generated: false };
  }
  const token = given?.trim() || env.PLAYGROUND_TOKEN?.trim();
  return token ? { token, generated: false } : { token: newSecret(), generated: true };
}

export interface AccessNotice {
  /** Lines for the start banner (without indentation). */
  lines: string[];
  /** Said loudly, on stderr too: no token at all, or a guessable one. */
  warning: string | null;
}

/**
 * What a start says about access: where the token comes from and who it keeps out, or, with
 * PLAYGROUND_AUTH=none, who can now get in. `where` is the address listened on, `loopback` whether
 * only this machine reaches it, `orsKeys` whether ORS_API_KEYS guards the ORS endpoints.
 */
export function describeAccess(
  access: Access,
  o: { where: string; loopback: boolean; orsKeys: boolean; allowedHosts: boolean },
): AccessNotice {
  if (access.token === null) {
    const who = o.loopback
      ? "every user and every program of this machine"
      : "anyone who can reach it over the network";
    return {
      lines: [`No access token (${AUTH_VAR}=none): pages, APIs and the relay are open.`],
      warning:
        `WARNING: ${AUTH_VAR}=none: the playground at ${o.where} has NO ACCESS TOKEN. ${who[0]!.toUpperCase()}${who.slice(1)} ` +
        "can read every recorded episode, take over running sessions and use its relay. Use it only in a " +
        `throwaway container or a CI job; unset ${AUTH_VAR} to require the token again.`,
    };
  }
  const lines = [
    "Pages and APIs need the access token: the Open URL sets it in your browser (a cookie); scripts send",
    "`Authorization: Bearer <token>`.",
    access.generated
      ? "The token was generated at startup and changes with every start; set PLAYGROUND_TOKEN to keep one."
      : "The token is PLAYGROUND_TOKEN's: it stays the same across restarts.",
  ];
  if (o.orsKeys) lines.push("ORS clients use the keys of ORS_API_KEYS (X-API-Key), not the token.");
  else if (o.loopback && !o.allowedHosts)
    lines.push("ORS clients (/api/ors and the root) need no token on loopback.");
  else
    lines.push(
      "ORS clients send the token as X-API-Key (or set ORS_API_KEYS to give them keys of their own).",
    );
  const warning =
    access.token.length < SHORT_TOKEN
      ? `WARNING: PLAYGROUND_TOKEN has only ${access.token.length} characters: easy to guess. Use ${SHORT_TOKEN} or more (or leave it unset for a random one).`
      : null;
  return { lines, warning };
}
