// The compare view's diff, server-side (lib/conformance/diff/compare.ts), on a playground of its own:
// two environments of the built-in host compared, and the refusals the API answers with (an unknown
// server, an unknown environment), each with its status.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CompareError, compareEnvironments } from "@/lib/conformance/diff/compare";
import { staticEnvironmentSource } from "@/lib/environments/source";
import { createPlayground, type Playground } from "@/lib/playground";
import { shop } from "../../fixtures/diff/shop";
import { tempDir } from "../../runs/helpers";

let pg: Playground;
beforeAll(async () => {
  // Two versions side by side, under two names.
  const v2 = shop(2);
  pg = createPlayground(
    { PLAYGROUND_DATA_DIR: tempDir("compare-") },
    { environments: staticEnvironmentSource([shop(1), { ...v2, name: "shop2" }]), scriptRoots: null },
  );
  await pg.ready;
});
afterAll(async () => {
  await pg?.close();
});

describe("compareEnvironments", () => {
  it("compares two environments of known servers: the report of the diff, without scores", async () => {
    const r = await compareEnvironments(pg, {
      server: "local",
      env: "shop",
      with: { server: "local", env: "shop2" },
    });
    expect(r).toMatchObject({
      schemaVersion: 1,
      a: { server: "local", url: "/api/ors", env: "shop" },
      b: { server: "local", url: "/api/ors", env: "shop2" },
      verdict: "breaking",
      counts: { breaking: 8, compatible: 6, cosmetic: 5 },
      behaviour: null,
    });
  });

  it("refuses an unknown server (404) and an unknown environment (404), naming them", async () => {
    const refused = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: unknown) => e as CompareError,
      );
    const server = await refused(
      compareEnvironments(pg, { server: "local", env: "shop", with: { server: "nope", env: "x" } }),
    );
    expect(server).toMatchObject({ name: "CompareError", status: 404, message: 'unknown server "nope"' });
    const env = await refused(
      compareEnvironments(pg, { server: "local", env: "shop", with: { server: "local", env: "nope" } }),
    );
    expect(env).toMatchObject({ status: 404, message: expect.stringContaining('no environment "nope"') });
  });
});
