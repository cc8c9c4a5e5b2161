// The playground's access token for `check` and `test` aimed at a playground's relay
// (`http://HOST:PORT/api/servers/<name>`): `--token`, or `PLAYGROUND_TOKEN`, sent as `Authorization:
// Bearer` as scripts send it (docs/security.md). Sent to the URL's own origin only; the variable's
// only to relay URLs, so a token in the environment never reaches another server.

export const TOKEN_USAGE = `  --token TOKEN           a playground's access token, for a URL under its /api/servers/<name>
                          (default: $PLAYGROUND_TOKEN, sent only to such a URL)`;

const RELAY_PATH = /^\/api\/servers\/[^/]+(\/|$)/;

/** The token to send to `url`: `--token`'s, or the environment's when `url` is a playground's relay. */
export function accessTokenFor(
  url: string,
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (flag !== undefined) return flag.trim() || undefined;
  const fromEnv = env.PLAYGROUND_TOKEN?.trim();
  return fromEnv && RELAY_PATH.test(new URL(url).pathname) ? fromEnv : undefined;
}

/** `fetch` that adds the token to requests for the origins of `tokens` (URL → token). */
export function fetchWithTokens(
  base: typeof fetch | undefined,
  tokens: ReadonlyMap<string, string>,
): typeof fetch | undefined {
  if (tokens.size === 0) return base;
  const byOrigin = new Map([...tokens].map(([url, token]) => [new URL(url).origin, token]));
  const f = base ?? fetch;
  return (input, init) => {
    const req = new Request(input, init);
    const token = byOrigin.get(new URL(req.url).origin);
    if (token && !req.headers.has("authorization")) req.headers.set("authorization", `Bearer ${token}`);
    return f(req);
  };
}
