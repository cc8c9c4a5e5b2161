// How `npm run fuzz` sends a request and reads its answer: node:http with a keep-alive agent (the
// status, and the first 4 KiB of the body: a stream's status is what counts), or a raw socket for
// what node:http's client refuses to send. Every request is bounded in time.
import { type Agent, request } from "node:http";
import net from "node:net";
import type { FuzzRequest } from "./fuzz-rand";

export interface Outcome {
  status: number | null;
  detail: string;
  error?: string;
}

const READ_LIMIT = 4096;
const guarded = new WeakSet<object>();
const TIMEOUT_MS = 15_000;

export function send(agent: Agent | false, port: number, req: FuzzRequest): Promise<Outcome> {
  if (req.raw) return sendRaw(port, req.raw, req.halfClose ?? false);
  // Several events may report an outcome (end, close, error, timeout): the first resolves, as a
  // promise keeps its first value and ignores the rest.
  return new Promise((done) => {
    let r: ReturnType<typeof request>;
    try {
      r = request({
        host: "127.0.0.1",
        port,
        method: req.method,
        path: req.path,
        headers: { host: `127.0.0.1:${port}`, ...req.headers },
        agent,
        timeout: TIMEOUT_MS,
      });
    } catch (e) {
      done({ status: null, detail: "", error: `client refused to send: ${(e as Error).message}` });
      return;
    }
    // A server that answers early and closes (a refused 11 MB body) resets the rest of the upload:
    // that error may come after the request is done with its socket.
    r.on("socket", (sock) => {
      if (!guarded.has(sock)) {
        guarded.add(sock);
        sock.on("error", () => {});
      }
    });
    r.on("response", (res) => {
      let detail = "";
      res.on("data", (d: Buffer) => {
        if (detail.length < READ_LIMIT) detail += d.toString("utf8");
        else res.destroy(); // a stream (SSE feed): its status is what counts
      });
      res.on("end", () => done({ status: res.statusCode ?? null, detail }));
      res.on("close", () => done({ status: res.statusCode ?? null, detail }));
      res.on("error", () => done({ status: res.statusCode ?? null, detail }));
      setTimeout(() => res.destroy(), 5000).unref();
    });
    r.on("timeout", () => {
      r.destroy();
      done({ status: null, detail: "", error: "timeout" });
    });
    r.on("error", (e) =>
      done({ status: null, detail: "", error: (e as NodeJS.ErrnoException).code ?? e.message }),
    );
    if (req.body) r.end(req.body);
    else r.end();
  });
}

function sendRaw(port: number, bytes: Buffer, halfClose: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    const s = net.connect(port, "127.0.0.1", () => (halfClose ? s.end(bytes) : s.write(bytes)));
    let out = "";
    const finish = (error?: string) => {
      s.destroy();
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(out);
      resolve({
        status: m ? Number(m[1]) : null,
        detail: out.slice(out.indexOf("\r\n\r\n") + 4, 600),
        error,
      });
    };
    s.on("data", (d: Buffer) => {
      out += d.toString("latin1");
      if (out.length > READ_LIMIT) finish();
    });
    s.on("end", () => finish());
    s.on("error", (e: NodeJS.ErrnoException) => finish(out ? undefined : (e.code ?? e.message)));
    s.setTimeout(TIMEOUT_MS, () => finish("timeout"));
  });
}
