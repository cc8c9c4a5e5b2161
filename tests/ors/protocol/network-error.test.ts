// How a fetch that failed before any answer is described (lib/ors/protocol/network-error.ts): the
// code undici or Node puts on the error or its cause, named in words; otherwise the message with
// its cause; and which failures mean the server could not be reached.
import { describe, expect, it } from "vitest";
import { describeNetworkError, isUnreachableError, networkErrorCode } from "@/lib/ors/protocol/network-error";
import { unusedPort } from "../../relay/helpers";

const withCode = (code: string) => Object.assign(new Error(`failed ${code}`), { code });

describe("network errors", () => {
  it("finds the code on the error or down its causes", () => {
    expect(networkErrorCode(withCode("ECONNRESET"))).toBe("ECONNRESET");
    expect(networkErrorCode(new TypeError("fetch failed", { cause: withCode("ENOTFOUND") }))).toBe(
      "ENOTFOUND",
    );
    expect(networkErrorCode(new Error("plain"))).toBeUndefined();
    expect(networkErrorCode("not an error")).toBeUndefined();
  });

  it("names the known codes in words, and keeps the message and code of others", () => {
    expect(describeNetworkError(withCode("ECONNREFUSED"))).toBe("connection refused");
    expect(describeNetworkError(new TypeError("fetch failed", { cause: withCode("EAI_AGAIN") }))).toBe(
      "host name lookup failed (DNS)",
    );
    expect(describeNetworkError(withCode("EPROTO"))).toBe("failed EPROTO (EPROTO)");
    expect(describeNetworkError(new TypeError("fetch failed", { cause: new Error("bad port") }))).toBe(
      "fetch failed: bad port",
    );
  });

  it("counts refused, DNS and reset as unreachable, and a browser's TypeError too; not an HTTP-level error", () => {
    expect(isUnreachableError(withCode("ECONNREFUSED"))).toBe(true);
    expect(isUnreachableError(new TypeError("Failed to fetch"))).toBe(true);
    expect(isUnreachableError(withCode("EPROTO"))).toBe(false);
    expect(isUnreachableError(new Error("500 Internal Server Error"))).toBe(false);
  });

  it("describes a real refused connection on loopback", async () => {
    const err = await fetch(`http://127.0.0.1:${await unusedPort()}/`).catch((e: unknown) => e);
    expect(isUnreachableError(err)).toBe(true);
    expect(describeNetworkError(err)).toBe("connection refused");
  });
});
