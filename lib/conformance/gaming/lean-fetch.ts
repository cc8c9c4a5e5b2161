// The probes' fetch at a server's own URL: node:http on a keep-alive agent, each answer read whole
// before it is handed on. The probes play thousands of short episodes, and the platform's fetch
// (undici, with a web stream per body and a signal per request) costs the probing process several
// times the server's own CPU per request (docs/benchmarks.md "Reward probes"); https goes to it.
import "server-only";
import http from "node:http";

const NULL_BODY = new Set([101, 204, 205, 304]);

/** A fetch over one keep-alive pool (`close()` ends its sockets); whole bodies, no streaming. */
export function createLeanFetch(maxSockets = 16): typeof fetch & { close(): void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  const lean = ((input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    if (url.protocol !== "http:" || input instanceof Request) return globalThis.fetch(input, init);
    return new Promise<Response>((resolve, reject) => {
      const signal = init.signal;
      if (signal?.aborted) return reject(signal.reason);
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((v, k) => {
        headers[k] = v;
      });
      const body = init.body == null ? null : typeof init.body === "string" ? init.body : null;
      if (init.body != null && body === null) return resolve(globalThis.fetch(input, init));
      if (body !== null) headers["content-length"] = String(Buffer.byteLength(body));
      const req = http.request(url, { method: init.method ?? "GET", headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () => {
          signal?.removeEventListener("abort", onAbort);
          const raw = res.rawHeaders;
          const pairs: [string, string][] = [];
          for (let i = 0; i < raw.length; i += 2) pairs.push([raw[i]!, raw[i + 1]!]);
          const status = res.statusCode ?? 502;
          resolve(
            new Response(NULL_BODY.has(status) ? null : Buffer.concat(chunks), { status, headers: pairs }),
          );
        });
      });
      const onAbort = () => req.destroy(signal!.reason as Error);
      signal?.addEventListener("abort", onAbort, { once: true });
      req.on("error", (e) => {
        signal?.removeEventListener("abort", onAbort);
        reject(e);
      });
      req.end(body ?? undefined);
    });
  }) as typeof fetch & { close(): void };
  lean.close = () => agent.destroy();
  return lean;
}
