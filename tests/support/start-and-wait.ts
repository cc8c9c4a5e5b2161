// A process that starts a PostgreSQL cluster and an nginx, prints their PIDs and folders as JSON,
// then waits forever: tests/support/watchdog.test.ts kills it with -9 and checks that both servers
// stop by themselves. Run: node --import tsx tests/support/start-and-wait.ts <nginx binary>
import { startNginx } from "./nginx";
import { startPostgresCluster } from "./postgres";

const pg = await startPostgresCluster({ log: () => {} });
const nginx = await startNginx(process.argv[2]!, {
  http: "server { listen 127.0.0.1:{{PORT}}; location / { return 200 'ok'; } }",
});
console.log(
  JSON.stringify({ postgres: pg.pid, postgresPort: pg.port, nginx: nginx.pid, nginxUrl: nginx.url }),
);
setInterval(() => {}, 60_000);
