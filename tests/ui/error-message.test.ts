// errorMessage (lib/ui/use-episode.ts): every kind of client failure says what it was, then the detail.
import { describe, expect, it } from "vitest";
import { OrsClientError } from "@/lib/ors/client/errors";
import { errorMessage } from "@/lib/ui/use-episode";

describe("errorMessage", () => {
  it("names each kind of failure before its detail", () => {
    expect(errorMessage(new OrsClientError("unreachable", 0, "connection refused"))).toBe(
      "Server unreachable: connection refused",
    );
    expect(errorMessage(new OrsClientError("timeout", 0, "no answer in 30 s"))).toBe(
      "Timed out: no answer in 30 s",
    );
    expect(errorMessage(new OrsClientError("not-ors", 200, "an HTML page"))).toBe(
      "Not an ORS answer: an HTML page",
    );
    expect(errorMessage(new OrsClientError("stream", 0, "reconnection gave up"))).toBe(
      "Stream failed: reconnection gave up",
    );
  });

  it("gives an HTTP error's status", () => {
    expect(errorMessage(new OrsClientError("http", 404, "Session not found"))).toBe(
      "HTTP 404: Session not found",
    );
  });

  it("reads any other error's message", () => {
    expect(errorMessage(new Error("boom"))).toBe("boom");
    expect(errorMessage("plain")).toBe("plain");
  });
});
