// The ORS endpoint list is defined once (lib/ors/protocol/paths.ts): the host's router, the relay and
// the app's root rewrites (next.config.mjs, which reads that file's source) all follow it.
import { describe, expect, it } from "vitest";
import { ENV_ENDPOINTS, parseOrsPath, ROOT_ENDPOINTS } from "@/lib/ors/protocol";
// @ts-expect-error: a plain ES module without types (Next's configuration file).
import nextConfig from "../../../next.config.mjs";

type Rewrite = { source: string; destination: string };

async function rewrites(): Promise<Rewrite[]> {
  const r = (await nextConfig.rewrites()) as { beforeFiles: Rewrite[] };
  return r.beforeFiles;
}

describe("next.config.mjs rewrites", () => {
  it("send every root endpoint of paths.ts to the host, and nothing else at the root", async () => {
    const roots = (await rewrites()).filter((r) => !r.source.includes(":"));
    expect(roots).toEqual(ROOT_ENDPOINTS.map((e) => ({ source: `/${e}`, destination: `/api/ors/${e}` })));
  });

  it("send /{env}/<endpoint> for exactly the environment endpoints of paths.ts", async () => {
    const env = (await rewrites()).find((r) => r.source.startsWith("/:env/"));
    expect(env).toEqual({
      source: `/:env/:endpoint(${ENV_ENDPOINTS.join("|")})`,
      destination: "/api/ors/:env/:endpoint",
    });
    for (const e of ENV_ENDPOINTS)
      expect(parseOrsPath(`/math/${e}`)).toEqual({ kind: "env", env: "math", endpoint: e });
  });
});
