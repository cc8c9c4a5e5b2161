// What the security tests share: raw bytes to a loopback port, and the app's request policy with
// nothing allowed beyond the defaults unless a test says so.
import { connect } from "node:net";
import { appPathKind, createRequestPolicy, type PolicySettings } from "@/lib/security/policy-config";

/** The app's policy (its paths' kinds): no extra host or origin, no token, no ORS keys, but `over`. */
export function appPolicy(over: Partial<Omit<PolicySettings, "kindOf">> = {}) {
  return createRequestPolicy({
    hosts: [],
    origins: [],
    token: null,
    orsKeys: false,
    kindOf: appPathKind,
    ...over,
  });
}

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
