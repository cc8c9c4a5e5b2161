// Hierarchical TanStack Query keys for everything the UI fetches. Components never write raw keys:
// they go through these factories, and invalidation works by prefix (e.g. orsKeys.server("local")
// drops everything cached for that server).

export const serverKeys = {
  /** The list of known servers with their health (GET /api/servers). */
  all: ["servers"] as const,
};

export const environmentKeys = {
  /** The built-in host's reloads: the last one, and saves that did not load (GET /api/environments/status). */
  status: ["environments", "status"] as const,
};

export const diffKeys = {
  all: ["diff"] as const,
  /** The surface diff of an environment against another server's (POST /api/servers/<a>/diff). */
  surface: (a: string, aEnv: string, b: string, bEnv: string) => ["diff", a, aEnv, b, bEnv] as const,
};

export const orsKeys = {
  all: ["ors"] as const,
  server: (server: string) => ["ors", server] as const,
  health: (server: string) => [...orsKeys.server(server), "health"] as const,
  envs: (server: string) => [...orsKeys.server(server), "envs"] as const,
  env: (server: string, env: string) => [...orsKeys.server(server), "env", env] as const,
  tools: (server: string, env: string) => [...orsKeys.env(server, env), "tools"] as const,
  splits: (server: string, env: string) => [...orsKeys.env(server, env), "splits"] as const,
  split: (server: string, env: string, split: string) =>
    [...orsKeys.env(server, env), "split", split] as const,
  numTasks: (server: string, env: string, split: string) =>
    [...orsKeys.split(server, env, split), "num_tasks"] as const,
  /** Prefix of every loaded page of tasks of a split (used to filter what is loaded). */
  taskPages: (server: string, env: string, split: string) =>
    [...orsKeys.split(server, env, split), "range"] as const,
  taskRange: (server: string, env: string, split: string, start: number, stop: number) =>
    [...orsKeys.taskPages(server, env, split), start, stop] as const,
  task: (server: string, env: string, split: string, index: number) =>
    [...orsKeys.split(server, env, split), "task", index] as const,
  /** Session-scoped resources (the episode helper's prompt / task_tools live under these). */
  session: (server: string, sid: string) => [...orsKeys.server(server), "session", sid] as const,
  prompt: (server: string, env: string, sid: string) =>
    [...orsKeys.session(server, sid), "prompt", env] as const,
  taskTools: (server: string, env: string, sid: string) =>
    [...orsKeys.session(server, sid), "task_tools", env] as const,
};
