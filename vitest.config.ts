import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

// The packed-tarball test (npm pack + install + start: minutes) runs on its own: npm run test:pack.
const PACK_TEST = "tests/cli/pack.test.ts";
const packOnly = process.env.ORS_PACK_TEST === "1";

export default defineConfig({
  resolve: {
    alias: {
      "@": fileURLToPath(new URL("./", import.meta.url)),
      // `server-only` throws outside a React Server environment; in tests we are the server.
      "server-only": fileURLToPath(new URL("./node_modules/server-only/empty.js", import.meta.url)),
    },
  },
  test: {
    include: packOnly ? [PACK_TEST] : ["tests/**/*.test.{ts,tsx}"],
    exclude: packOnly ? configDefaults.exclude : [...configDefaults.exclude, PACK_TEST],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Vitest's default is one worker less than the cores: one, on CI's two. Most files wait on
    // processes and sockets, so two at once finish sooner on two cores.
    maxWorkers: 2,
    // One PostgreSQL cluster per run, started only if a test asks for a database (tests/support/).
    globalSetup: ["tests/support/global-setup.ts"],
  },
});
