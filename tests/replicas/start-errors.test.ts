// The app's server entry (what `npm start` and `npm run dev` run) with PLAYGROUND_DATABASE_URL that
// cannot work: a URL that is not PostgreSQL's, a server nobody answers on, a database that does not
// exist. Each stops the start at once with exit code 1 and a message that says what is wrong (the
// password never shown), before Next is started: no production build is needed to see it.
import { describe, expect, it } from "vitest";
import { anyFreeLoopbackPort } from "../../scripts/bench-proc";
import { REPO, run } from "../environments/helpers";
import { postgresDatabase } from "../support/postgres";
import { APP_AUTH_ENV } from "./helpers";

const db = await postgresDatabase("start_errors");

async function startWith(url: string) {
  return run(["--import", "tsx", "lib/app-server/main.ts", "--port", "0"], {
    cwd: REPO,
    env: { ...APP_AUTH_ENV, PLAYGROUND_DATABASE_URL: url },
  });
}

describe("npm start with a database that cannot work", () => {
  it("a URL that is not PostgreSQL's", async () => {
    const r = await startWith("mysql://me:s3cret@127.0.0.1/app");
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      "could not start the playground: PLAYGROUND_DATABASE_URL must start with postgres:// or postgresql://",
    );
    expect(r.err + r.out).not.toContain("s3cret");
  }, 60_000);

  it("a server nobody answers on", async () => {
    const port = await anyFreeLoopbackPort();
    const r = await startWith(`postgres://me:s3cret@127.0.0.1:${port}/app`);
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      `could not start the playground: cannot reach PostgreSQL at postgres://me:***@127.0.0.1:${port}/app: connection refused`,
    );
    expect(r.err + r.out).not.toContain("s3cret");
  }, 60_000);

  it("a database that does not exist", async () => {
    const missing = new URL(db.url);
    missing.pathname = "/no_such_database";
    const r = await startWith(missing.toString());
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /could not start the playground: PostgreSQL at .*no_such_database: database "no_such_database" does not exist/,
    );
  }, 60_000);
});
