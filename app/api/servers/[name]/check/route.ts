// POST /api/servers/<name>/check: runs the ORS conformance check (lib/conformance) on a known
// server, server-side, and streams it as NDJSON, one JSON object a line:
//   {"type":"start","server":..,"baseUrl":..,"checks":[{id,group,title,spec}...]}
//   {"type":"result","result":{...CheckResult}}          one per check, as each is decided
//   {"type":"quality","progress":{phase,done,total}}     with `quality`: the quality checks playing
//   {"type":"report","report":{...ConformanceReport}}    at the end (its `quality` part when asked)
// Body (application/json, every field optional): {env, task: "split:index", tool, input, idleTimeoutMs,
// quality: {split, tasks, seed, oracle}} — `quality` (even `{}`) adds the environment quality checks
// (docs/check.md "Environment quality"), played through the relay and recorded like runs; an oracle
// module must be in a folder runs' scripts may load from.
// `local` is checked in process; other servers at their URL after the registry's address check,
// with no redirect followed. A client that goes away stops the check (its sessions are deleted).

import { z } from "zod";
import {
  CHECKS,
  type ConformanceOptions,
  type ConformanceReport,
  runConformanceCheck,
} from "@/lib/conformance";
import { attachQuality, unplayedQuality } from "@/lib/conformance/quality/report";
import { qualityDeps, runQualityChecks } from "@/lib/conformance/quality/run-quality";
import { MAX_QUALITY_TASKS } from "@/lib/conformance/quality/types";
import { serverTarget } from "@/lib/conformance/target";
import { type NdjsonWriter, ndjsonPush, parseJson, parseWith, readBody, route } from "@/lib/http";
import { OrsError } from "@/lib/ors/protocol";
import { getPlayground, type Playground } from "@/lib/playground";
import { isRunError } from "@/lib/runs/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const bodySchema = z.strictObject({
  env: z.string().trim().min(1).max(200).optional(),
  task: z
    .string()
    .trim()
    .regex(/^.+:\d+$/, "expected split:index, e.g. train:0")
    .optional(),
  tool: z.string().trim().min(1).max(200).optional(),
  input: z.record(z.string(), z.unknown()).optional(),
  idleTimeoutMs: z
    .number()
    .int()
    .positive()
    .max(30 * 60_000)
    .optional(),
  quality: z
    .strictObject({
      split: z.string().trim().min(1).max(256).optional(),
      tasks: z.number().int().min(1).max(MAX_QUALITY_TASKS).optional(),
      seed: z.number().int().optional(),
      oracle: z.string().trim().min(1).max(4096).optional(),
    })
    .optional(),
});
type CheckBody = z.infer<typeof bodySchema>;

/** Checks running in this process; each holds a few sessions on its server for up to minutes. */
const MAX_RUNNING = 4;
let running = 0;

/** The check's options, as JSON: 415 for another content type, 400 for a body that is not them. */
async function readCheckBody(req: Request): Promise<CheckBody> {
  if (!(req.headers.get("content-type") ?? "").includes("application/json"))
    throw new OrsError(415, "send the check's options as application/json ({} for none)");
  const body = parseWith(bodySchema, parseJson(await readBody(req, 64 * 1024)));
  if (body.input && !body.tool) throw new OrsError(400, "input: give the tool it is for");
  return body;
}

/** Where and how to check server `name`: in process for `local`, else its checked address. */
async function checkTarget(pg: Playground, name: string): Promise<ConformanceOptions & { url: string }> {
  const target = await serverTarget(pg, name);
  if (!target.ok) throw new OrsError(target.status, target.detail);
  const { baseUrl, fetch, apiKey, builtin } = target;
  return {
    url: builtin ? "/api/ors" : baseUrl,
    baseUrl,
    ...(fetch ? { fetch } : {}),
    ...(apiKey ? { apiKey } : {}),
    // Long enough for one keep-alive ping of this host's configured interval, with room for a busy
    // machine (the run is timed from the task_id event's arrival).
    ...(builtin ? { slowToolSeconds: Math.max(2.5, (pg.host.host.options.pingIntervalMs * 2) / 1000) } : {}),
  };
}

/** The body's choices as the check's options. */
function withBody(options: ConformanceOptions, body: CheckBody): ConformanceOptions {
  const o = { ...options };
  if (body.env) o.env = body.env;
  if (body.task) {
    const at = body.task.lastIndexOf(":");
    o.task = { split: body.task.slice(0, at), index: Number(body.task.slice(at + 1)) };
  }
  if (body.tool) o.tool = { name: body.tool, input: body.input };
  if (body.idleTimeoutMs) o.idleTimeoutMs = body.idleTimeoutMs;
  return o;
}

/** Runs the check (and the quality checks when asked), writing each result as it is decided. */
async function streamCheck(
  pg: Playground,
  name: string,
  url: string,
  options: ConformanceOptions,
  body: CheckBody,
  w: NdjsonWriter,
): Promise<void> {
  w.send({ type: "start", server: name, baseUrl: url, checks: CHECKS });
  try {
    let report: ConformanceReport = await runConformanceCheck({
      ...options,
      signal: w.signal,
      onResult: (result) => w.send({ type: "result", result }),
    });
    if (body.quality && !w.signal.aborted) {
      const quality = await runQualityChecks(qualityDeps(pg), {
        server: name,
        env: body.env ?? report.target.environment,
        ...body.quality,
        signal: w.signal,
        onProgress: (progress) => w.send({ type: "quality", progress }),
      }).catch((err: unknown) => {
        if (isRunError(err)) return unplayedQuality(name, err.detail);
        throw err;
      });
      report = attachQuality(report, quality);
    }
    w.send({ type: "report", report });
  } catch (err) {
    w.send({ type: "error", detail: `the check failed: ${(err as Error).message}` });
  }
}

export const POST = route<{ name: string }>(async (req, { name }) => {
  const body = await readCheckBody(req);
  const pg = getPlayground();
  const { url, ...target } = await checkTarget(pg, name);
  const options = withBody(target, body);
  if (running >= MAX_RUNNING)
    throw new OrsError(429, `${running} checks are running; wait for one to finish`);
  running++;
  return ndjsonPush(async (w) => {
    try {
      await streamCheck(pg, name, url, options, body, w);
    } finally {
      running--;
    }
  }, req.signal);
});
