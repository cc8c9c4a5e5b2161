// The nginx configuration of `serve --workers N` (docs/team-scale.md, "The host scaled out"): every
// request of a session reaches the worker process that owns it, by the worker named in its session
// id; requests without a session are spread; SSE streams through unbuffered; failures answer JSON,
// nginx's own included.
import "server-only";
import { errorBody } from "@/lib/ors/protocol";

export interface WorkerUpstream {
  index: number;
  /** The worker's loopback port. */
  port: number;
}

export interface FrontOptions {
  /** Where nginx listens (the command's --host and --port). */
  listen: { host: string; port: number };
  workers: readonly WorkerUpstream[];
  /** The run folder: nginx's pid file, error log and temporary files. */
  runDir: string;
  /** ORS_SESSION_ID_PREFIX as the user set it ("" when unset): the workers' prefixes follow it. */
  sessionIdBase: string;
  /** The host's request body limit (ORS_MAX_BODY_BYTES): nginx refuses beyond it as the host would. */
  maxBodyBytes: number;
  /** Longest wait for a worker's next bytes; well above the ping interval of a running tool call. */
  readTimeoutS: number;
  /** `user` of nginx's worker processes when started as root (they then must not run as root). */
  user: string | null;
}

/** The start of every session id worker `index` makes, whatever its restart: what routes to it. */
export function workerRoutePrefix(base: string, index: number): string {
  return `${base}w${index}-`;
}

/** The session id prefix of worker `index` in its `restart`-th start (`w1-r0-`, then `w1-r1-` ...). */
export function workerSessionPrefix(base: string, index: number, restart: number): string {
  return `${workerRoutePrefix(base, index)}r${restart}-`;
}

/** A regular expression matching `text` literally (the prefix characters the host allows). */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\~-]/g, "\\$&");
}

/** An nginx single-quoted string. */
function quoted(text: string): string {
  return `'${text.replace(/[\\']/g, "\\$&")}'`;
}

/**
 * The `listen` parameters for `--host`. nginx binds an IPv6 address for IPv6 alone; `::` (every
 * interface) means both families, as it does for node, so it listens on IPv4 too (ipv6only=off).
 */
export function listenDirective({ host, port }: FrontOptions["listen"]): string {
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  if (!bare.includes(":")) return `${bare}:${port}`;
  // URL parsing writes an IPv6 address in its shortest form: `0:0::0` is `::`.
  const every = new URL(`http://[${bare}]/`).hostname === "[::]";
  return every ? `[::]:${port} ipv6only=off` : `[${bare}]:${port}`;
}

/**
 * nginx's own error answers, as JSON. The request-line and header errors happen before any location
 * is chosen, where only an error page given as a URI can run (a named one ends in nginx's HTML 500):
 * so each is a plain location of its own, `/.ors-nginx/<status>` (no ORS path looks like it). A
 * request nginx cannot read is the client's mistake, answered 400 as the host itself answers it
 * (node's parser): an unknown HTTP version or transfer coding too, not nginx's 505 and 501.
 */
const NGINX_ERRORS: readonly { codes: string; status: number; detail: string }[] = [
  { codes: "400", status: 400, detail: "Bad request: malformed HTTP (the request line or a header)" },
  { codes: "414", status: 414, detail: "Request line too long: at most 32 KiB" },
  { codes: "494", status: 400, detail: "Request header too large: at most 32 KiB" },
  { codes: "411", status: 411, detail: "Length required: send Content-Length or chunked transfer encoding" },
  {
    codes: "501",
    status: 400,
    detail: "Bad request: an unknown Transfer-Encoding (send chunked, or a length)",
  },
  { codes: "505", status: 400, detail: "Bad request: an HTTP version other than HTTP/1.1 or HTTP/1.0" },
  { codes: "500", status: 500, detail: "nginx in front of the ORS host workers failed: see its error log" },
];

/** `{"detail": text}` as nginx's `return` writes it; `$ors_worker` in `text` is the worker's index. */
function detailBody(text: string): string {
  return quoted(errorBody(text));
}

// Below node's 60 s keepAliveTimeout (lib/ors/host/node-adapter.ts): nginx must never reuse an
// upstream connection the worker is closing at that moment (a spurious 502).
const UPSTREAM_KEEPALIVE = ["keepalive 64;", "keepalive_timeout 50s;", "keepalive_requests 1000000;"];

/**
 * The whole nginx.conf. Routing: `X-Session-ID` starting with a worker's prefix goes to that worker
 * alone; no session id: least connections over all workers (`create_session`, discovery, `/health`);
 * an id made by the client itself: hashed, so its requests still meet. A worker that is down answers
 * its sessions 410 with a `detail` (its sessions are lost: they lived in its memory); no worker at
 * all, 503 with `Retry-After`. Answers of the workers (their 404, 410, 429 + Retry-After) pass
 * unchanged.
 */
export function nginxConfig(o: FrontOptions): string {
  const servers = (extra = "") => o.workers.map((w) => `    server 127.0.0.1:${w.port}${extra};`);
  const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map(
    (name) => `  ${name}_temp_path ${o.runDir}/${name};`,
  );
  const routes = o.workers.map(
    (w) => `    ${quoted(`~^${literal(workerRoutePrefix(o.sessionIdBase, w.index))}`)} ors_w${w.index};`,
  );
  const names = o.workers.map(
    (w) => `    ${quoted(`~^${literal(workerRoutePrefix(o.sessionIdBase, w.index))}`)} ${w.index};`,
  );
  const own = o.workers.flatMap((w) => [
    `  upstream ors_w${w.index} {`,
    `    server 127.0.0.1:${w.port};`,
    ...UPSTREAM_KEEPALIVE.map((l) => `    ${l}`),
    "  }",
  ]);
  const minutes = Math.ceil(o.readTimeoutS / 60);
  return [
    "# Written by `ors-playground serve --workers` (lib/scale/nginx-config.ts), rewritten when a",
    "# worker comes back on another port. Not meant to be edited: it lives only while the command runs.",
    "daemon off;",
    "master_process on;",
    "worker_processes 1;",
    "worker_rlimit_nofile 20000;",
    o.user ? `user ${o.user};` : "",
    `pid ${o.runDir}/nginx.pid;`,
    `error_log ${o.runDir}/error.log warn;`,
    "events { worker_connections 8192; }",
    "http {",
    "  access_log off;",
    "  server_tokens off;",
    ...temp,
    "",
    "  # The worker a request goes to: the one named by its session id.",
    "  map $http_x_session_id $ors_upstream {",
    '    "" ors_spread;',
    ...routes,
    "    default ors_hashed;",
    "  }",
    "  map $http_x_session_id $ors_worker {",
    ...names,
    '    default "";',
    "  }",
    "  upstream ors_spread {",
    "    least_conn;",
    ...servers(" max_fails=1 fail_timeout=1s"),
    ...UPSTREAM_KEEPALIVE.map((l) => `    ${l}`),
    "  }",
    "  upstream ors_hashed {",
    "    hash $http_x_session_id consistent;",
    ...servers(" max_fails=1 fail_timeout=1s"),
    ...UPSTREAM_KEEPALIVE.map((l) => `    ${l}`),
    "  }",
    ...own,
    "",
    "  server {",
    `    listen ${listenDirective(o.listen)} backlog=4096;`,
    "    keepalive_requests 1000000;",
    `    client_max_body_size ${o.maxBodyBytes};`,
    "    client_body_buffer_size 1m;",
    "    large_client_header_buffers 4 32k;",
    ...NGINX_ERRORS.map((e) => `    error_page ${e.codes} =${e.status} /.ors-nginx/${e.codes};`),
    "    error_page 413 = @too_large;",
    "    error_page 502 = @worker_down;",
    "    error_page 504 = @worker_silent;",
    "",
    "    location / {",
    "      proxy_pass http://$ors_upstream;",
    "      proxy_http_version 1.1;",
    '      proxy_set_header Connection "";',
    "      proxy_set_header Host $http_host;",
    "      # Tool calls answer with server-sent events: every frame goes out as it comes.",
    "      proxy_buffering off;",
    "      proxy_connect_timeout 5s;",
    `      proxy_read_timeout ${o.readTimeoutS}s;`,
    `      proxy_send_timeout ${o.readTimeoutS}s;`,
    "    }",
    "    location @worker_down {",
    "      default_type application/json;",
    "      add_header Cache-Control no-store always;",
    '      if ($ors_worker = "") {',
    "        add_header Retry-After 1 always;",
    "        add_header Cache-Control no-store always;",
    `        return 503 ${detailBody("No ORS host worker is running right now (they are being restarted): retry shortly")};`,
    "      }",
    `      return 410 ${detailBody("This session is lost: the ORS host worker that held it (worker $ors_worker) stopped. Sessions live in the memory of the worker that created them and cannot move to another; start a new session with /create_session")};`,
    "    }",
    "    location @worker_silent {",
    "      default_type application/json;",
    "      add_header Cache-Control no-store always;",
    `      return 504 ${detailBody(`The ORS host worker sent nothing for ${minutes} minute${minutes === 1 ? "" : "s"}: gave up waiting`)};`,
    "    }",
    "    location @too_large {",
    "      default_type application/json;",
    "      add_header Cache-Control no-store always;",
    `      return 413 ${detailBody(`Request body too large: the limit is ${o.maxBodyBytes} bytes (ORS_MAX_BODY_BYTES)`)};`,
    "    }",
    ...NGINX_ERRORS.flatMap((e) => [
      `    location = /.ors-nginx/${e.codes} {`,
      "      default_type application/json;",
      "      add_header Cache-Control no-store always;",
      `      return ${e.status} ${detailBody(e.detail)};`,
      "    }",
    ]),
    "  }",
    "}",
  ]
    .filter((line) => line !== "")
    .join("\n")
    .concat("\n");
}
