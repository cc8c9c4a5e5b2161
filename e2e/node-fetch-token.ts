// The e2e suite's access token for what specs send with Node's own `fetch` (not the browser, not
// Playwright's `request`): added as `Authorization: Bearer` to requests to loopback addresses that
// carry no `Authorization` of their own, through undici's global dispatcher (the documented way to
// configure Node's fetch). A spec that wants a request without any token sends
// `authorization: ""`, or uses node:http. Browsers never see this: an attacker page in Chromium
// has no token.
import { Agent, type Dispatcher, setGlobalDispatcher } from "undici";

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

function withBearer(headers: Dispatcher.DispatchOptions["headers"], token: string) {
  const bearer = `Bearer ${token}`;
  if (headers == null) return { authorization: bearer };
  if (Array.isArray(headers)) {
    // undici's flat [name, value, name, value, ...] form, or [name, value] pairs.
    const pairs = (typeof headers[0] === "string" ? chunk(headers as string[]) : headers) as [
      string,
      string,
    ][];
    if (pairs.some(([k]) => String(k).toLowerCase() === "authorization")) return headers;
    return [...pairs.flat(), "authorization", bearer];
  }
  const entries =
    Symbol.iterator in headers
      ? [...(headers as Iterable<[string, string]>)]
      : Object.entries(headers as Record<string, string>);
  if (entries.some(([k]) => k.toLowerCase() === "authorization")) return headers;
  return Object.fromEntries([...entries, ["authorization", bearer]]);
}

function chunk(flat: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}

/** Makes Node's global fetch send `token` to loopback servers (the apps the suite starts). */
export function sendTokenWithNodeFetch(token: string): void {
  const agent = new Agent().compose((dispatch) => (opts, handler) => {
    const origin = opts.origin ? new URL(String(opts.origin)) : null;
    if (!origin || !LOOPBACK.test(origin.hostname)) return dispatch(opts, handler);
    return dispatch({ ...opts, headers: withBearer(opts.headers, token) as typeof opts.headers }, handler);
  });
  setGlobalDispatcher(agent);
}
