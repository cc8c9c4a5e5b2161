// One request sent byte for byte over a raw socket (what fetch and node:http refuse to send: a
// malformed request line, HTTP/2.0 on a plain connection), and the answer as read: status, headers,
// body. The server closes or the read gives up after `timeoutMs`.
import net from "node:net";

export interface RawAnswer {
  status: number | null;
  headers: Record<string, string>;
  body: string;
}

export function rawRequest(url: string, head: string, timeoutMs = 5_000): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const s = net.connect(Number(port), hostname.replace(/^\[(.*)\]$/, "$1"), () =>
      s.end(Buffer.from(head, "latin1")),
    );
    let text = "";
    const done = () => {
      clearTimeout(timer);
      s.destroy();
      const end = text.indexOf("\r\n\r\n");
      const lines = (end < 0 ? text : text.slice(0, end)).split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const at = line.indexOf(":");
        if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
      }
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? "");
      resolve({
        status: status ? Number(status[1]) : null,
        headers,
        body: end < 0 ? "" : text.slice(end + 4),
      });
    };
    const timer = setTimeout(done, timeoutMs);
    s.on("data", (d: Buffer) => {
      text += d.toString("latin1");
    });
    s.on("end", done);
    s.on("error", done);
  });
}
