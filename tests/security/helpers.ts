// What the security tests share: raw bytes to a loopback port.
import { connect } from "node:net";

/** Sends raw bytes to 127.0.0.1:`port` and returns everything written back until the server closes. */
export function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, "127.0.0.1", () => s.write(bytes));
    let out = "";
    s.on("data", (d) => {
      out += d;
    });
    s.on("end", () => resolve(out));
    s.on("error", reject);
    s.setTimeout(5000, () => {
      s.destroy();
      reject(new Error(`no close; got ${JSON.stringify(out)}`));
    });
  });
}
