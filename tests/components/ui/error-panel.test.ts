// describeError (components/ui/error-panel.tsx) tells the playground's own access token (a 401 from
// its request policy, lib/security) from a server's API key (a 401 a server sends through the relay).
import { describe, expect, it } from "vitest";
import { describeError } from "@/components/ui/error-panel";

describe("describeError", () => {
  it("a 401 of the playground's policy asks for its URL with the token, not for a server's API key", () => {
    const mine = describeError({
      status: 401,
      detail:
        "this playground requires its access token (Authorization: Bearer <token>, or open the URL it printed with ?token=)",
    });
    expect(mine.title).toBe("Access token needed");
    expect(String(mine.hints[0])).toMatch(/Open the URL the playground printed/);
    const theirs = describeError({ status: 401, detail: "Invalid or missing API key" }, { server: "py" });
    expect(theirs.title).toBe("API key rejected");
  });
});
