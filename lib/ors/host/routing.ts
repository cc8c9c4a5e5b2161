// Routing of ORS requests (spec: ors-http-api.txt, every endpoint): the base path, the endpoint
// shapes and their methods, /health, API keys, the session header, and which part answers: the
// root endpoints (sessions), the discovery endpoints of an environment, its prompt, task tools and
// calls. Bare paths (`/splits`, `/call`: what the OpenReward client sends) are served directly, for
// the environment of the session, of the `X-Deployment` header, or the only one hosted.
import { errorBody, OrsError } from "../protocol/http-error";
import {
  DEPLOYMENT_HEADER,
  ENDPOINT_METHODS,
  type EnvEndpoint,
  parseOrsPath,
  type RootEndpoint,
} from "../protocol/paths";
import { PLATFORM_ONLY_CREATE_FIELDS } from "../protocol/schemas";
import type { ToolCalls } from "./calls";
import { discover, isDiscovery } from "./discovery";
import type { EnvironmentIndex } from "./environments";
import type { OrsHostOptions } from "./options";
import { errorMessage, normalizeBlocks } from "./output";
import { jsonReply, type OrsReply } from "./reply";
import {
  type IncomingOrsRequest,
  parseJsonObject,
  parseSecretsHeader,
  quote,
  readCreate,
  readJsonObject,
  requireSid,
  sessionIdOf,
} from "./request";
import { type HostedEnvironment, type Session, UNBOUND } from "./session";
import type { SessionTable } from "./sessions";

const ROOT_LIST =
  "/health, /list_environments, /create_session, /create, /ping, /delete, /delete_session, /{env}/tools, /{env}/splits, /{env}/tasks, /{env}/num_tasks, /{env}/task, /{env}/task_range, /{env}/prompt, /{env}/task_tools, /{env}/call, and the same without /{env}";

const OK_STATUS = '{"status":"ok"}';

function sidReply(sid: string): OrsReply {
  return jsonReply(200, `{"sid":${JSON.stringify(sid)}}`);
}

/** `reply` once `work` is done: at once when there is nothing to wait for. */
function afterward(work: Promise<void> | undefined, reply: OrsReply): Promise<OrsReply> | OrsReply {
  return work ? work.then(() => reply) : reply;
}

/** The parts a router hands requests to. */
/** The header carrying OrsHostOptions.relayKey: sent only by the playground's relay, in process. */
export const RELAY_ONLY_HEADER = "x-ors-relay-key";

export interface RouterParts {
  options: OrsHostOptions;
  envs: () => EnvironmentIndex;
  sessions: SessionTable;
  calls: ToolCalls;
}

export class Router {
  private readonly apiKeys: Set<string> | null;

  constructor(private readonly parts: RouterParts) {
    const keys = parts.options.apiKeys;
    this.apiKeys = keys.length ? new Set(keys) : null;
  }

  route(req: IncomingOrsRequest): Promise<OrsReply> | OrsReply {
    let path = req.path;
    const base = this.parts.options.basePath;
    if (base && path.startsWith(base) && (path.length === base.length || path[base.length] === "/"))
      path = path.slice(base.length);
    const route = parseOrsPath(path);
    if (route.kind === "unknown")
      throw new OrsError(404, `Not found: ${quote(path || "/")} is not an ORS endpoint (${ROOT_LIST})`);
    const expected = ENDPOINT_METHODS[route.endpoint];
    if (req.method !== expected && !(req.method === "HEAD" && expected === "GET")) {
      return jsonReply(
        405,
        errorBody(`Method ${req.method} not allowed on /${route.endpoint}: use ${expected}`),
        { allow: expected },
      );
    }
    if (route.kind === "root" && route.endpoint === "health") return jsonReply(200, OK_STATUS);
    if (this.apiKeys) {
      const key = req.header("x-api-key");
      if (!key) throw new OrsError(401, "Missing X-API-Key header: this server requires an API key");
      if (!this.apiKeys.has(key.trim())) throw new OrsError(401, "Invalid API key (X-API-Key)");
    }
    const sid = sessionIdOf(req);
    if (sid !== null) {
      const s = this.parts.sessions.peek(sid);
      // A session the playground's relay records is unknown to anyone else (not drivable unrecorded).
      if (s?.relayOnly && req.header(RELAY_ONLY_HEADER) !== this.parts.options.relayKey)
        throw new OrsError(404, `Session not found: ${quote(sid)} (create it with /create first)`);
      // Spec: any request with its X-Session-ID resets the idle timer.
      if (s) s.lastSeen = performance.now();
    }
    if (route.kind === "root") return this.root(route.endpoint, req, sid);
    if (route.kind === "bare")
      return this.envEndpoint(route.endpoint, this.bareEnv(route.endpoint, req, sid), req, sid);
    return this.envEndpoint(route.endpoint, this.parts.envs().require(route.env), req, sid);
  }

  /**
   * The environment of a bare path: a session-bound one (/prompt, /task_tools, /call) follows its
   * session; otherwise the environment `X-Deployment` names, or the only one hosted (spec, /create:
   * "requests to unrecognized paths are redirected to it automatically"; served here, not redirected).
   */
  private bareEnv(endpoint: EnvEndpoint, req: IncomingOrsRequest, sid: string | null): HostedEnvironment {
    if (!isDiscovery(endpoint)) {
      // A missing header is a 400, unknown or ended ids get their 404/410, as on /{env}/... paths.
      const s = this.parts.sessions.require(requireSid(sid));
      if (s.status !== UNBOUND) return s.hosted;
    }
    const envs = this.parts.envs();
    const header = req.header(DEPLOYMENT_HEADER);
    const named = envs.fromDeployment(header);
    if (named) return named;
    if (envs.size === 1) return envs.defaultEnv;
    const hosted = envs.names.join(", ");
    if (header?.trim())
      throw new OrsError(
        404,
        `Unknown environment ${quote(header.trim())} (X-Deployment header) for /${endpoint}; this server hosts: ${hosted}`,
      );
    throw new OrsError(
      404,
      `/${endpoint} names no environment and this server hosts several (${hosted}): use /{env}/${endpoint}, or name it in an X-Deployment header`,
    );
  }

  private body(req: IncomingOrsRequest): Promise<unknown> {
    return readJsonObject(req, this.parts.options.maxBodyBytes);
  }

  private root(
    endpoint: RootEndpoint,
    req: IncomingOrsRequest,
    sid: string | null,
  ): Promise<OrsReply> | OrsReply {
    const sessions = this.parts.sessions;
    switch (endpoint) {
      case "list_environments":
        return jsonReply(200, this.parts.envs().listJson);
      case "create_session": {
        const newSid = this.parts.options.sessionIdPrefix + crypto.randomUUID();
        if ((req.header("accept") ?? "").includes("text/event-stream"))
          return { kind: "sse", body: `event: task_id\ndata: ${newSid}\n\nevent: end\ndata: \n\n` };
        return sidReply(newSid);
      }
      case "create":
        return this.create(req, requireSid(sid));
      case "ping":
        sessions.ping(requireSid(sid));
        return jsonReply(200, OK_STATUS);
      case "delete": {
        const id = requireSid(sid);
        return afterward(sessions.delete(id), sidReply(id));
      }
      case "delete_session": {
        const id = requireSid(sid);
        return afterward(sessions.deleteIfHeld(id), sidReply(id));
      }
      default:
        throw new OrsError(404, `Not found: /${endpoint}`);
    }
  }

  private async create(req: IncomingOrsRequest, sid: string): Promise<OrsReply> {
    const sessions = this.parts.sessions;
    const text = await req.readBody(this.parts.options.maxBodyBytes);
    const raw = parseJsonObject(text);
    for (const [field, what] of Object.entries(PLATFORM_ONLY_CREATE_FIELDS))
      if (field in (raw as object))
        throw new OrsError(
          400,
          `${field}: an OpenReward platform option (${what}) that this host does not offer; leave it out`,
        );
    const body = readCreate(raw);
    sessions.assertNewSession(sid);
    const envs = this.parts.envs();
    // env_name first; else the environment X-Deployment names; else the only one. With none of
    // them (several environments), the session's first /{env}/... request binds it.
    let hosted: HostedEnvironment | null = null;
    if (body.env_name != null) hosted = envs.require(body.env_name);
    else
      hosted =
        envs.fromDeployment(req.header(DEPLOYMENT_HEADER)) ?? (envs.size === 1 ? envs.defaultEnv : null);
    const header = req.header("x-secrets");
    const secrets: Record<string, string> = header ? parseSecretsHeader(header) : {};
    if (body.secrets) Object.assign(secrets, body.secrets);
    // What the session holds of the client's: the body (task spec, secrets) and the X-Secrets header.
    const bytes = Buffer.byteLength(text) + (header?.length ?? 0);
    const key = this.parts.options.relayKey;
    const relayOnly = key !== null && req.header(RELAY_ONLY_HEADER) === key;
    await sessions.create({ sid, body, hosted, secrets, bytes, relayOnly });
    return sidReply(sid);
  }

  private envEndpoint(
    endpoint: EnvEndpoint,
    hosted: HostedEnvironment,
    req: IncomingOrsRequest,
    sid: string | null,
  ): Promise<OrsReply> | OrsReply {
    if (isDiscovery(endpoint)) return discover(endpoint, hosted, () => this.body(req));
    const sessions = this.parts.sessions;
    switch (endpoint) {
      case "prompt":
      case "task_tools": {
        const id = requireSid(sid);
        // A session whose setup is done is answered at once; others wait for it (spec: /create).
        const answer =
          endpoint === "prompt" ? (s: Session) => this.prompt(s) : (s: Session) => this.taskTools(s);
        const ready = sessions.readyNow(id);
        return ready ? answer(ready) : sessions.ready(id, hosted).then(answer);
      }
      case "call": {
        const id = requireSid(sid);
        return this.body(req).then((body) => this.parts.calls.call(hosted, body, id));
      }
    }
    throw new OrsError(404, `Not found: /${endpoint}`);
  }

  private taskTools(s: Session): OrsReply {
    this.parts.sessions.tools(s);
    return jsonReply(200, s.taskToolsJson!);
  }

  /** The session's prompt (spec: GET /{env}/prompt), checked and serialized; at once when getPrompt is. */
  private prompt(s: Session): Promise<OrsReply> | OrsReply {
    let blocks: unknown;
    try {
      blocks = s.hosted.env.definition.getPrompt(s.ctx);
    } catch (e) {
      throw this.promptFailed(s, e);
    }
    if (typeof (blocks as PromiseLike<unknown>)?.then !== "function") return this.promptReply(s, blocks);
    return Promise.resolve(blocks).then(
      (b) => this.promptReply(s, b),
      (e: unknown) => {
        throw this.promptFailed(s, e);
      },
    );
  }

  private promptFailed(s: Session, e: unknown): OrsError {
    this.parts.options.log(`getPrompt of ${s.hosted.name} failed`, e);
    return new OrsError(500, `Environment ${s.hosted.name}: getPrompt failed: ${errorMessage(e)}`);
  }

  private promptReply(s: Session, blocks: unknown): OrsReply {
    try {
      return jsonReply(200, JSON.stringify(normalizeBlocks(blocks, "prompt")));
    } catch (e) {
      throw new OrsError(500, `Environment ${s.hosted.name} returned an invalid prompt: ${errorMessage(e)}`);
    }
  }
}
