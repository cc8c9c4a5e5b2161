import { defineConfig, devices } from "@playwright/test";
import { sendTokenWithNodeFetch } from "./e2e/node-fetch-token";

// e2e runs against a production build (`npm run build` first) served by the app's server entry as
// `npm start` runs it (lib/app-server/main.ts: Next behind the request policy, ORS fast path), plus a
// second, independent ORS server (the standalone host) on another loopback port for the relay.
const PORT = Number(process.env.E2E_PORT ?? 3100);

// #region access-token (docs/security.md shows this region as it is)
// The app asks for its access token on every page and API. A fixed one is given to the app
// (`webServer.env`) and to the browser as the cookie that opening `/?token=...` would set
// (HttpOnly, SameSite=Strict, so a page of another site never sends it), in `storageState`: every
// page, context and `request` of every spec has it, and `baseURL` stays a plain origin (page.goto
// and request resolve paths against it and would drop a `?token=` query anyway).
const TOKEN = process.env.PLAYGROUND_TOKEN || "e2e-playground-token-not-a-secret";
const tokenCookie = (domain: string) => ({
  name: `ors_playground_token_${PORT}`,
  value: TOKEN,
  domain,
  path: "/",
  expires: -1,
  httpOnly: true,
  secure: false,
  sameSite: "Strict" as const,
});
// Apps the specs start themselves inherit the token (any port: a token cookie counts wherever it
// carries the app's token), and Node's own fetch in specs sends it to loopback as a bearer token.
process.env.PLAYGROUND_TOKEN = TOKEN;
sendTokenWithNodeFetch(TOKEN);
// #endregion
const SECOND_PORT = Number(process.env.E2E_SECOND_PORT ?? 8199);
// The reference-shaped test server (tests/fixtures/reference-server), known to the app as `py`.
const REFERENCE_PORT = Number(process.env.E2E_REFERENCE_PORT ?? 8198);
// The OpenAI-compatible model fixture (tests/fixtures/model-server), the app's model endpoint `fixture`.
const MODEL_PORT = Number(process.env.E2E_MODEL_PORT ?? 8197);
// The same build once more with ORS_FAST_PATH=0: /api/ors through Next's route handler and rewrites.
const ROUTE_PORT = Number(process.env.E2E_ROUTE_PORT ?? PORT + 1);
const DATA_DIR = process.env.E2E_DATA_DIR ?? `.data/e2e-${PORT}`;
const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** `npm start` (the server entry) of the production build on a loopback port, ready when its ORS host answers. */
function nextStart(port: number, env: Record<string, string>) {
  return {
    command: `node --import tsx lib/app-server/main.ts --port ${port} --host 127.0.0.1`,
    url: `http://127.0.0.1:${port}/api/ors/health`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "ignore" as const,
    stderr: "pipe" as const,
    env,
  };
}

export default defineConfig({
  testDir: "e2e",
  fullyParallel: false,
  workers: 1,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: process.env.CI ? [["list"]] : [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    storageState: { cookies: [tokenCookie("127.0.0.1"), tokenCookie("localhost")], origins: [] },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    ...devices["Desktop Chrome"],
    launchOptions: {
      executablePath: chromium,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
      ],
    },
  },
  webServer: [
    {
      command: `npx tsx scripts/serve.ts --port ${SECOND_PORT} --host 127.0.0.1`,
      url: `http://127.0.0.1:${SECOND_PORT}/health`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: "ignore",
      stderr: "pipe",
    },
    {
      command: `node --import tsx tests/fixtures/reference-server/main.ts --port ${REFERENCE_PORT} --host 127.0.0.1`,
      url: `http://127.0.0.1:${REFERENCE_PORT}/health`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: "ignore",
      stderr: "pipe",
      // Short keep-alive pings, as for the local host below.
      env: { REF_PING_MS: "1000", REF_EXTRA_FIELDS: "all" },
    },
    {
      command: `node --import tsx tests/fixtures/model-server/main.ts --port ${MODEL_PORT} --host 127.0.0.1`,
      url: `http://127.0.0.1:${MODEL_PORT}/v1/models`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: "ignore",
      stderr: "pipe",
    },
    nextStart(PORT, {
      PLAYGROUND_TOKEN: TOKEN,
      PLAYGROUND_DATA_DIR: DATA_DIR,
      PLAYGROUND_MODELS: `fixture=http://127.0.0.1:${MODEL_PORT}/v1`,
      PLAYGROUND_MODEL_API_KEY_FIXTURE: "e2e-fixture-key",
      ORS_SERVERS: `second=http://127.0.0.1:${SECOND_PORT},py=http://127.0.0.1:${REFERENCE_PORT}`,
      // Short SSE keep-alive pings so the episode e2e sees them within a few seconds.
      ORS_PING_INTERVAL_MS: "1000",
      // A per-server idle limit (the episode's countdown shows it); `py`'s stays unknown.
      ORS_SERVER_IDLE_TIMEOUT_MS_SECOND: "120000",
    }),
    nextStart(ROUTE_PORT, {
      PLAYGROUND_TOKEN: TOKEN,
      PLAYGROUND_DATA_DIR: `${DATA_DIR}-route`,
      ORS_FAST_PATH: "0",
      ORS_SERVERS: `py=http://127.0.0.1:${REFERENCE_PORT}`,
    }),
  ],
});
