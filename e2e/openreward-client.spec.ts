// The OpenReward platform's client (its exact requests: tests/fixtures/openreward-client) on the app
// itself, as real processes: the root of the server entry `npm start` runs (the ORS fast path) and
// the same build behind Next's route handler and rewrites (ORS_FAST_PATH=0). Bare paths with
// X-Deployment, the environment never named in a path.
import { expect, test } from "@playwright/test";
import { createOpenRewardClient } from "../tests/fixtures/openreward-client/client";
import { playSecret, solveMath } from "../tests/fixtures/openreward-client/episodes";

const PORT = Number(process.env.E2E_PORT ?? 3100);
const ROUTE_PORT = Number(process.env.E2E_ROUTE_PORT ?? PORT + 1);

for (const [mount, base] of [
  ["the server entry's fast path", `http://127.0.0.1:${PORT}`],
  ["Next's route handler and rewrites", `http://127.0.0.1:${ROUTE_PORT}`],
] as const) {
  test(`the OpenReward client plays math and secret episodes at the root (${mount})`, async () => {
    const paths: string[] = [];
    const client = createOpenRewardClient({
      baseUrl: base,
      waitScale: 0.01,
      fetch: (input, init) => {
        paths.push(new URL(String(input)).pathname);
        return fetch(input, init);
      },
    });
    const math = client.environments.get("math");
    expect(await math.listSplits()).toEqual(["train", "test"]);
    expect((await math.getTaskRange("train", 0, 2)).map((t) => t.environmentName)).toEqual(["math", "math"]);
    await solveMath(client, 4, expect);

    expect(await playSecret(client, "abc")).toMatchObject({ reward: 1, metadata: { length: 3 } });
    expect(paths.filter((p) => p.split("/").length > 2)).toEqual([]);
  });
}
