// Next.js configuration. The ORS endpoint shapes are rewritten at the root onto the ORS host
// (see docs/architecture.md "Protocol compatibility"): the reference Python client drops any path in its
// base URL, so http://HOST:PORT must itself be an ORS base URL.
import { readFileSync } from "node:fs";

/**
 * An endpoint list of lib/ors/protocol/paths.ts (the one definition), read from its source: this
 * file is loaded by plain Node (`next build`), which cannot import TypeScript. A list that cannot be
 * read stops the build, naming it; tests/ors/protocol/paths.test.ts checks the rewrites against it.
 */
function endpointList(name) {
  const file = new URL("./lib/ors/protocol/paths.ts", import.meta.url);
  const match = readFileSync(file, "utf8").match(
    new RegExp(`export const ${name} = \\[([^\\]]*)\\] as const`),
  );
  const names = match ? [...match[1].matchAll(/"([a-z_]+)"/g)].map((m) => m[1]) : [];
  if (names.length === 0) throw new Error(`next.config.mjs: no ${name} list in lib/ors/protocol/paths.ts`);
  return names;
}

const ROOT_ENDPOINTS = endpointList("ROOT_ENDPOINTS");
const ENV_ENDPOINTS = endpointList("ENV_ENDPOINTS").join("|");

/**
 * Host names of PLAYGROUND_ALLOWED_HOSTS and of the server entry's listen address
 * (PLAYGROUND_LISTEN_HOSTS, lib/security/policy-config.ts): `next dev` serves its dev resources to
 * pages from these names too (loopback names always).
 */
const devOrigins = [process.env.PLAYGROUND_ALLOWED_HOSTS, process.env.PLAYGROUND_LISTEN_HOSTS]
  .join(",")
  .split(",")
  .map(hostNameOnly)
  .filter(Boolean);

/** `name:port` → `name`, `[v6]:port` → `v6`; a bare IPv6 address stays as it is. */
function hostNameOnly(entry) {
  const h = entry.trim();
  if (h.startsWith("[")) return h.slice(1, h.indexOf("]"));
  return h.split(":").length === 2 ? h.slice(0, h.indexOf(":")) : h;
}

/** @type {import('next').NextConfig} */
const nextConfig = {
  allowedDevOrigins: devOrigins,
  // A separate build folder lets tests build without clobbering a running dev server.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  serverExternalPackages: ["better-sqlite3", "pg"],
  poweredByHeader: false,
  reactStrictMode: true,
  // No page of the app may be framed by another site, and no answer is sniffed into another type.
  // The HTML exports (/api/trajectories/<id>/export, /api/trajectories/export) set a stricter policy
  // of their own (lib/episodes/html-export.ts, frame-ancestors included), which a header here would
  // replace: the app's Content-Security-Policy goes on every other path.
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "X-Frame-Options", value: "DENY" },
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Referrer-Policy", value: "same-origin" },
        ],
      },
      {
        source: "/:path((?!api/trajectories/(?:[^/]+/)?export$).*)",
        headers: [{ key: "Content-Security-Policy", value: "frame-ancestors 'none'" }],
      },
    ];
  },
  async rewrites() {
    return {
      beforeFiles: [
        ...ROOT_ENDPOINTS.map((p) => ({ source: `/${p}`, destination: `/api/ors/${p}` })),
        { source: `/:env/:endpoint(${ENV_ENDPOINTS})`, destination: "/api/ors/:env/:endpoint" },
        // Bare (`/splits`, `/call`): the OpenReward client's form, the environment in X-Deployment.
        { source: `/:endpoint(${ENV_ENDPOINTS})`, destination: "/api/ors/:endpoint" },
      ],
    };
  },
};

export default nextConfig;
