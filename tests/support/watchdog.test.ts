// The servers the tests start stop by themselves when the process that started them is gone: a
// process starts PostgreSQL and nginx (tests/support/start-and-wait.ts), is killed with -9, and
// both servers are gone within seconds, with their temporary folders.
import { describe, expect, it } from "vitest";
import { eventually, REPO, start } from "../environments/helpers";
import { nginxBinary } from "./nginx";
import { postgresDatabase } from "./postgres";
import { alive } from "./processes";

// The run's PostgreSQL cluster, started (or the file fails, saying why) before the kill below.
await postgresDatabase("watchdog");
const nginx = await nginxBinary("watchdog");

describe("test servers stop by themselves", () => {
  it("PostgreSQL and nginx stop when the process that started them is killed", async () => {
    const owner = start(["--import", "tsx", "tests/support/start-and-wait.ts", nginx.path], { cwd: REPO });
    const [line] = await owner.waitFor(/^\{.*\}$/m, 60_000);
    const pids = JSON.parse(line!) as { postgres: number; nginx: number; nginxUrl: string };
    expect(await (await fetch(pids.nginxUrl)).text()).toBe("ok");
    expect(alive(pids.postgres) && alive(pids.nginx)).toBe(true);
    process.kill(owner.child.pid!, "SIGKILL");
    await eventually(async () => (!alive(pids.postgres) && !alive(pids.nginx) ? true : undefined), 20_000);
  }, 60_000);
});
