// The sessionless discovery endpoints of one environment (spec: ors-http-api.txt "Discovery
// Endpoints"): /tools, /splits, /tasks, /num_tasks, /task, /task_range. /tasks, /task and
// /task_range carry `env_name` (the OpenReward client reads it from all three).
import {
  getTaskRangeRequestSchema,
  getTaskRequestSchema,
  listTasksRequestSchema,
  numTasksRequestSchema,
} from "../protocol/schemas";
import { requireSplit, sliceIndex, taskAt } from "./environments";
import { jsonReply, type OrsReply } from "./reply";
import { validate } from "./request";
import type { HostedEnvironment } from "./session";

export type DiscoveryEndpoint = "tools" | "splits" | "tasks" | "num_tasks" | "task" | "task_range";

/** Whether an endpoint is one of the discovery endpoints (no session needed). */
export function isDiscovery(endpoint: string): endpoint is DiscoveryEndpoint {
  return (
    endpoint === "tools" ||
    endpoint === "splits" ||
    endpoint === "tasks" ||
    endpoint === "num_tasks" ||
    endpoint === "task" ||
    endpoint === "task_range"
  );
}

function json(value: unknown): OrsReply {
  return jsonReply(200, JSON.stringify(value));
}

/** Answers a discovery endpoint; `readBody` reads the JSON body of the POST ones. */
export async function discover(
  endpoint: DiscoveryEndpoint,
  hosted: HostedEnvironment,
  readBody: () => Promise<unknown>,
): Promise<OrsReply> {
  const env = hosted.env;
  switch (endpoint) {
    case "tools":
      return jsonReply(200, hosted.toolsJson);
    case "splits":
      return jsonReply(200, hosted.splitsJson);
    case "tasks": {
      const { split } = validate(listTasksRequestSchema, await readBody());
      requireSplit(env, split);
      return json({ tasks: await env.listTasks(split), env_name: hosted.name });
    }
    case "num_tasks": {
      const { split } = validate(numTasksRequestSchema, await readBody());
      requireSplit(env, split);
      return json({ num_tasks: await env.numTasks(split) });
    }
    case "task": {
      const { split, index } = validate(getTaskRequestSchema, await readBody());
      return json({ task: await taskAt(env, split, index), env_name: hosted.name });
    }
    case "task_range": {
      const { split, start, stop } = validate(getTaskRangeRequestSchema, await readBody());
      requireSplit(env, split);
      const n = await env.numTasks(split);
      const from = sliceIndex(start ?? 0, n);
      const to = sliceIndex(stop ?? n, n);
      return json({ tasks: from < to ? await env.getTaskRange(split, from, to) : [], env_name: hosted.name });
    }
  }
}
