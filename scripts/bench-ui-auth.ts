// The UI benchmark's access to the app (bench-ui.ts, bench-ui-huge.ts): the app asks for its access
// token, so the server gets this one, Node's requests send it as a bearer token, and every browser
// context starts with the cookie that opening the printed `/?token=` URL sets.
import { randomBytes } from "node:crypto";
import type { Browser } from "@playwright/test";

export const TOKEN = randomBytes(24).toString("base64url");
export const AUTH: Readonly<Record<string, string>> = { authorization: `Bearer ${TOKEN}` };

/** A fresh browser context that holds the app's token cookie (as after opening the printed URL). */
export function appContext(
  browser: Browser,
  base: string,
  options: Parameters<Browser["newContext"]>[0] = {},
) {
  const { hostname, port } = new URL(base);
  return browser.newContext({
    ...options,
    storageState: {
      origins: [],
      cookies: [
        {
          name: `ors_playground_token_${port}`,
          value: TOKEN,
          domain: hostname,
          path: "/",
          expires: -1,
          httpOnly: true,
          secure: false,
          sameSite: "Strict",
        },
      ],
    },
  });
}
