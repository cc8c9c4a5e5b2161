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
import { errorResponse } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";
import { isRunError } from "@/lib/runs/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ name: string }> };

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

/** Checks running in this process; each holds a few sessions on its server for up to minutes. */
const MAX_RUNNING = 4;
let running = 0;

export async function POST(req: Request, ctx: Ctx) {
  if (!(req.headers.get("content-type") ?? "").includes("application/json"))
    return errorResponse(415, "send the check's options as application/json ({} for none)");
  let raw: unknown;
  try {
    const text = await req.text();
    raw = text.trim() ? JSON.parse(text) : {};
  } catch {
    return errorResponse(400, "the body is not JSON");
  }
  const parsed = bodySchema.safeParse(raw);
  if (!parsed.success)
    return errorResponse(
      400,
      parsed.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; "),
    );
  const body = parsed.data;
  if (body.input && !body.tool) return errorResponse(400, "input: give the tool it is for");

  const { name } = await ctx.params;
  const pg = getPlayground();
  const target = await serverTarget(pg, name);
  if (!target.ok) return errorResponse(target.status, target.detail);
  const options: ConformanceOptions = { baseUrl: target.baseUrl };
  if (target.fetch) options.fetch = target.fetch;
  if (target.apiKey) options.apiKey = target.apiKey;
  // Long enough for one keep-alive ping of this host's configured interval, with room for a busy
  // machine (the run is timed from the task_id event's arrival).
  if (target.builtin)
    options.slowToolSeconds = Math.max(2.5, (pg.host.host.options.pingIntervalMs * 2) / 1000);
  if (body.env) options.env = body.env;
  if (body.task) {
    const at = body.task.lastIndexOf(":");
    options.task = { split: body.task.slice(0, at), index: Number(body.task.slice(at + 1)) };
  }
  if (body.tool) options.tool = { name: body.tool, input: body.input };
  if (body.idleTimeoutMs) options.idleTimeoutMs = body.idleTimeoutMs;

  if (running >= MAX_RUNNING)
    return errorResponse(429, `${running} checks are running; wait for one to finish`);
  running++;
  const stop = new AbortController();
  const onGone = () => stop.abort(new Error("the page went away"));
  req.signal.addEventListener("abort", onGone, { once: true });
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (value: unknown) => {
        if (stop.signal.aborted) return;
        try {
          controller.enqueue(encoder.encode(`${JSON.stringify(value)}\n`));
        } catch {
          // The reader is gone; the abort below stops the check.
        }
      };
      send({
        type: "start",
        server: name,
        baseUrl: target.builtin ? "/api/ors" : target.baseUrl,
        checks: CHECKS,
      });
      try {
        let report: ConformanceReport = await runConformanceCheck({
          ...options,
          signal: stop.signal,
          onResult: (result) => send({ type: "result", result }),
        });
        if (body.quality && !stop.signal.aborted) {
          const q = body.quality;
          const quality = await runQualityChecks(qualityDeps(pg), {
            server: name,
            env: body.env ?? report.target.environment,
            ...q,
            signal: stop.signal,
            onProgress: (progress) => send({ type: "quality", progress }),
          }).catch((err: unknown) => {
            if (isRunError(err)) return unplayedQuality(name, err.detail);
            throw err;
          });
          report = attachQuality(report, quality);
        }
        send({ type: "report", report });
      } catch (err) {
        send({ type: "error", detail: `the check failed: ${(err as Error).message}` });
      } finally {
        running--;
        req.signal.removeEventListener("abort", onGone);
        try {
          controller.close();
        } catch {
          // already cancelled
        }
      }
    },
    cancel() {
      stop.abort(new Error("the page went away"));
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": "application/x-ndjson; charset=utf-8",
      // no-transform: keeps compression from holding the lines back.
      "cache-control": "no-store, no-transform",
      "x-accel-buffering": "no",
    },
  });
}
