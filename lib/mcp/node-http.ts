// A fetch handler (Request → Response) as a node:http listener, for `ors-playground mcp --http`: the
// request body streams in, the answer (an SSE stream, usually) streams out as the client reads, and a
// client that goes away cancels the answer's stream, so the SDK's transport stops writing to it.
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";

type FetchHandler = (req: Request) => Promise<Response>;

function requestOf(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, {
    method,
    headers,
    signal,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: "half" } : {}),
  } as RequestInit);
}

async function writeResponse(res: ServerResponse, answer: Response): Promise<void> {
  const headers: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(answer.status, headers);
  if (!answer.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = answer.body.getReader();
  res.once("close", () => void reader.cancel().catch(() => {}));
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    // Backpressure: wait until the client took what was written.
    if (!res.write(value))
      await new Promise<void>((resolve) => {
        res.once("drain", resolve);
        res.once("close", resolve);
      });
    if (res.destroyed) break;
  }
  res.end();
}

/** A node:http `request` listener that answers with `handle`; a handler failure is a 500 `{detail}`. */
export function nodeListener(handle: FetchHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const gone = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) gone.abort();
    });
    void (async () => {
      try {
        await writeResponse(res, await handle(requestOf(req, gone.signal)));
      } catch (err) {
        if (!res.headersSent) {
          res.writeHead(500, { "content-type": "application/json" });
          res.end(JSON.stringify({ detail: `MCP bridge error: ${(err as Error).message}` }));
        } else res.destroy();
      }
    })();
  };
}
