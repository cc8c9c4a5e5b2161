// queryOptions factories (one per resource) and the hooks pages compose. Every request goes
// through the relay with the typed client (lib/ui/ors.ts); keys come from lib/ui/query-keys.ts.
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { loadOrsClient } from "./ors-loader";
import { orsKeys, serverKeys } from "./query-keys";
import { type AddServerInput, addServer, fetchServers, removeServer } from "./servers-api";

/** Tasks are fetched in fixed-size pages of this many, only for pages that are on screen. */
export const TASK_PAGE_SIZE = 100;

export function serversQuery() {
  return queryOptions({
    queryKey: serverKeys.all,
    queryFn: ({ signal }) => fetchServers(signal),
    staleTime: 10_000,
    refetchInterval: 30_000,
  });
}

export function environmentsQuery(server: string) {
  return queryOptions({
    queryKey: orsKeys.envs(server),
    queryFn: async ({ signal }) => (await loadOrsClient(server)).listEnvironments({ signal }),
  });
}

export function toolsQuery(server: string, env: string) {
  return queryOptions({
    queryKey: orsKeys.tools(server, env),
    queryFn: async ({ signal }) => (await (await loadOrsClient(server)).tools(env, { signal })).tools,
  });
}

export function splitsQuery(server: string, env: string) {
  return queryOptions({
    queryKey: orsKeys.splits(server, env),
    queryFn: async ({ signal }) => (await loadOrsClient(server)).splits(env, { signal }),
  });
}

export function numTasksQuery(server: string, env: string, split: string) {
  return queryOptions({
    queryKey: orsKeys.numTasks(server, env, split),
    queryFn: async ({ signal }) =>
      (await (await loadOrsClient(server)).numTasks(env, split, { signal })).num_tasks,
  });
}

/** One page of tasks: indices [start, stop). */
export function taskRangeQuery(server: string, env: string, split: string, start: number, stop: number) {
  return queryOptions({
    queryKey: orsKeys.taskRange(server, env, split, start, stop),
    queryFn: async ({ signal }) =>
      (await (await loadOrsClient(server)).taskRange(env, split, start, stop, { signal })).tasks,
    staleTime: 5 * 60_000,
  });
}

/** Page `page` of a split's tasks; `total` (num_tasks) clips the last page. */
export function taskPageQuery(server: string, env: string, split: string, page: number, total?: number) {
  const start = page * TASK_PAGE_SIZE;
  const stop = total === undefined ? start + TASK_PAGE_SIZE : Math.min(start + TASK_PAGE_SIZE, total);
  return taskRangeQuery(server, env, split, start, stop);
}

export function taskQuery(server: string, env: string, split: string, index: number) {
  return queryOptions({
    queryKey: orsKeys.task(server, env, split, index),
    queryFn: async ({ signal }) =>
      (await (await loadOrsClient(server)).task(env, split, index, { signal })).task,
  });
}

export function useServers() {
  return useQuery(serversQuery());
}

export function useEnvironments(server: string) {
  return useQuery(environmentsQuery(server));
}

export function useTools(server: string, env: string) {
  return useQuery(toolsQuery(server, env));
}

/** The environment's splits; nothing is asked before an environment is chosen (`env` empty). */
export function useSplits(server: string, env: string) {
  return useQuery({ ...splitsQuery(server, env), enabled: env !== "" });
}

export function useNumTasks(server: string, env: string, split: string | undefined) {
  return useQuery({ ...numTasksQuery(server, env, split ?? ""), enabled: !!split });
}

export function useTaskPage(
  server: string,
  env: string,
  split: string,
  page: number,
  total?: number,
  enabled = true,
) {
  return useQuery({ ...taskPageQuery(server, env, split, page, total), enabled });
}

export function useAddServer() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: AddServerInput) => addServer(input),
    onSuccess: () => qc.invalidateQueries({ queryKey: serverKeys.all }),
  });
}

export function useRemoveServer() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => removeServer(name),
    onSuccess: (_data, name) => {
      qc.removeQueries({ queryKey: orsKeys.server(name) });
      return qc.invalidateQueries({ queryKey: serverKeys.all });
    },
  });
}

/** One known server's entry (URL, source, health) from the server list, for error messages. */
export function useServerInfo(name: string) {
  const servers = useServers();
  return servers.data?.find((s) => s.name === name);
}
