// Test helpers for the conformance check: a deliberately broken ORS server (our real host with
// chosen faults, served on loopback), the report's JSON shape, and views of a report's outcomes.
import { z } from "zod";
import {
  CHECK_GROUPS,
  CHECK_OUTCOMES,
  CHECKS,
  type CheckGroup,
  type CheckOutcome,
  type ConformanceReport,
} from "@/lib/conformance";
import { PROBE_IDS } from "@/lib/conformance/gaming/types";
import { PLAY_ROLES, QUALITY_CHECK_IDS, QUALITY_OUTCOMES } from "@/lib/conformance/quality/types";
import {
  ENV_ENDPOINTS,
  formatSseEvent,
  parseOrsPath,
  readSseFrames,
  type SseFrame,
} from "@/lib/ors/protocol";
import type { FetchHandler } from "@/lib/registry";

const trajectoryRefShape = z.strictObject({
  id: z.string().min(1),
  step: z.number().int().positive().nullable(),
  href: z.string().startsWith("/trajectories/"),
});

/** The summary of the quality checks and of the probes. */
const checksSummaryShape = z.strictObject({
  findings: z.number().int(),
  waived: z.number().int(),
  notExercised: z.number().int(),
  passed: z.boolean(),
});

/** When a report or a part of it ran (ISO times and milliseconds), as each documents it. */
const timed = {
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime(),
  durationMs: z.number().int().nonnegative(),
};

/** The fields every result of a played part (quality, probe) has, its id one of `ids`. */
const playedResult = <const Ids extends readonly [string, ...string[]]>(ids: Ids) => ({
  id: z.enum(ids),
  title: z.string().min(1),
  outcome: z.enum(QUALITY_OUTCOMES),
  observed: z.string().min(1),
});

/** The documented quality part of the report (docs/check.md "The JSON report", `quality`), strict. */
export const qualityReportShape = z.strictObject({
  server: z.string().min(1),
  ...timed,
  sample: z
    .strictObject({
      environment: z.string(),
      split: z.string(),
      splitSize: z.number().int().positive(),
      requested: z.number().int().positive(),
      seed: z.number().int(),
      tasks: z.array(z.number().int().nonnegative()),
      oracle: z.string().nullable(),
      plays: z.array(
        z.strictObject({
          role: z.enum(PLAY_ROLES),
          runId: z.string().min(1),
          label: z.string().min(1),
          episodes: z.number().int(),
          done: z.number().int(),
          errored: z.number().int(),
        }),
      ),
      calls: z.number().int(),
      tools: z.array(z.strictObject({ name: z.string(), calls: z.number().int() })),
    })
    .nullable(),
  error: z.string().nullable(),
  bestReward: z.number().nullable(),
  results: z.array(
    z.strictObject({
      ...playedResult(QUALITY_CHECK_IDS),
      evidence: z.array(
        z.strictObject({
          task: z.number().int().nonnegative(),
          what: z.string().min(1),
          call: z.strictObject({ tool: z.string(), input: z.record(z.string(), z.unknown()) }).nullable(),
          trajectory: trajectoryRefShape.nullable(),
          other: trajectoryRefShape.nullable(),
          compareHref: z.string().startsWith("/trajectories/compare?").nullable(),
        }),
      ),
      evidenceTotal: z.number().int().nonnegative(),
      waived: z.boolean(),
      counted: z.boolean(),
    }),
  ),
  summary: checksSummaryShape,
});

const probeEvidenceShape = z.strictObject({
  task: z.number().int().nonnegative(),
  what: z.string().min(1),
  call: z.strictObject({ tool: z.string(), input: z.record(z.string(), z.unknown()) }).nullable(),
  trajectory: trajectoryRefShape.nullable(),
  other: z.null(),
  compareHref: z.null(),
  variant: z.string().min(1),
  calls: z.array(z.strictObject({ tool: z.string(), input: z.record(z.string(), z.unknown()) })),
  reward: z.number(),
  best: z.number(),
  reproduce: z.string().startsWith("U="),
});

/** The documented shape of `probe` (docs/check.md "Can the reward be gamed?"), strict. */
export const probeReportShape = z.strictObject({
  server: z.string().min(1),
  ...timed,
  reference: z
    .strictObject({
      kind: z.enum(["oracle", "baseline", "golden"]),
      source: z.string().min(1),
      runId: z.string().min(1).nullable(),
    })
    .nullable(),
  sample: z
    .strictObject({
      environment: z.string().min(1),
      split: z.string().min(1),
      splitSize: z.number().int().positive(),
      seed: z.number().int(),
      tasks: z.array(z.number().int().nonnegative()),
      episodes: z.number().int().nonnegative(),
      failed: z.number().int().nonnegative(),
    })
    .nullable(),
  error: z.string().nullable(),
  results: z.array(
    z.strictObject({
      ...playedResult(PROBE_IDS),
      evidence: z.array(probeEvidenceShape),
      evidenceTotal: z.number().int().nonnegative(),
      share: z.number().min(0).max(1).nullable(),
      waived: z.boolean(),
      counted: z.boolean(),
    }),
  ),
  summary: checksSummaryShape,
});

/** The documented `ors-conformance/1` shape (docs/check.md "The JSON report"), strict. */
export const reportShape = z.strictObject({
  format: z.literal("ors-conformance/1"),
  baseUrl: z.string().url(),
  ...timed,
  target: z.strictObject({
    environment: z.string().nullable(),
    task: z.strictObject({ split: z.string(), index: z.number().int() }).nullable(),
    tool: z.strictObject({ name: z.string(), input: z.record(z.string(), z.unknown()) }).nullable(),
  }),
  summary: z.strictObject({
    total: z.number().int(),
    counts: z.strictObject(Object.fromEntries(CHECK_OUTCOMES.map((o) => [o, z.number().int()]))),
    ok: z.boolean(),
    clean: z.boolean(),
    owners: z.strictObject({ author: z.number().int(), framework: z.number().int() }),
    waived: z.number().int(),
    passed: z.boolean(),
  }),
  framework: z
    .strictObject({ id: z.string().min(1), name: z.string().min(1), evidence: z.array(z.string().min(1)) })
    .nullable(),
  policy: z.strictObject({ strict: z.boolean(), allow: z.array(z.string()) }),
  results: z.array(
    z.strictObject({
      id: z.string(),
      group: z.enum(CHECK_GROUPS),
      title: z.string().min(1),
      outcome: z.enum(CHECK_OUTCOMES),
      observed: z.string().min(1),
      spec: z.strictObject({
        file: z.enum(["ors-http-api.txt", "ors-sse.txt", "ors-sessions-episodes.txt"]),
        section: z.string().min(1),
      }),
      durationMs: z.number().nonnegative(),
      owner: z.enum(["author", "framework"]).nullable(),
      deviations: z.array(z.string()),
      waived: z.boolean(),
      counted: z.boolean(),
    }),
  ),
  quality: qualityReportShape.nullable(),
  probe: probeReportShape.nullable(),
});

/** Whose each finding is, by id (passes and checks not exercised left out). */
export function owners(report: ConformanceReport): Record<string, string> {
  return Object.fromEntries(report.results.filter((r) => r.owner).map((r) => [r.id, r.owner!]));
}

/** The outcome of every check that did not pass, by id (`except` a group of checks). */
export function notPassing(report: ConformanceReport, except?: CheckGroup): Record<string, CheckOutcome> {
  return Object.fromEntries(
    report.results.filter((r) => r.outcome !== "pass" && r.group !== except).map((r) => [r.id, r.outcome]),
  );
}

/** The results that did not pass, readable in a failed assertion (`except` a group of checks). */
export function problems(report: ConformanceReport, except?: CheckGroup): string[] {
  return report.results
    .filter((r) => r.outcome !== "pass" && r.group !== except)
    .map((r) => `${r.id}: ${r.outcome}: ${r.observed}`);
}

export function result(report: ConformanceReport, id: string) {
  const r = report.results.find((x) => x.id === id);
  if (!r) throw new Error(`no result ${id}`);
  return r;
}

export const CHECK_IDS = CHECKS.map((c) => c.id);

function fastapi422(type: string, loc: (string | number)[], msg: string): Response {
  return Response.json({ detail: [{ type, loc, msg, input: {} }] }, { status: 422 });
}

/** A /call stream re-framed: each frame's text as `frame` writes it (comments included). */
function reframe(
  body: ReadableStream<Uint8Array>,
  frame: (f: SseFrame) => string,
): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      for await (const f of readSseFrames(body)) controller.enqueue(enc.encode(frame(f)));
      controller.close();
    },
  });
}

const sameFrame = (f: SseFrame) =>
  f.kind === "comment" ? `: ${f.comment}\n\n` : formatSseEvent(f.event, f.data);

/** Re-frames a /call stream with the result cut every 4096 characters wherever the cut falls. */
function recut(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  let pieces = "";
  return reframe(body, (f) => {
    if (f.kind !== "event" || (f.event !== "chunk" && f.event !== "end")) return sameFrame(f);
    pieces += f.data;
    if (f.event === "chunk") return "";
    let out = "";
    for (let i = 0; i < pieces.length; i += 4096)
      out += formatSseEvent(i + 4096 >= pieces.length ? "end" : "chunk", pieces.slice(i, i + 4096));
    return out;
  });
}

/**
 * An unknown tool answered as the reference Python server does, `end` {"ok": false, "error": ...},
 * where our host answers the spec's `event: error`: one difference from the spec, for the tests of
 * how the check reports and waives one.
 */
export function unknownToolAsOkFalse(host: FetchHandler): FetchHandler {
  return async (req) => {
    const res = await host(req);
    const sse = (res.headers.get("content-type") ?? "").includes("event-stream");
    if (!sse || !res.body || !new URL(req.url).pathname.endsWith("/call")) return res;
    const body = reframe(res.body, (f) =>
      f.kind === "event" && f.event === "error" && f.data.startsWith("Unknown tool ")
        ? formatSseEvent("end", JSON.stringify({ ok: false, error: f.data }))
        : sameFrame(f),
    );
    return new Response(body, { status: res.status, headers: res.headers });
  };
}

/**
 * Our host with faults a server might have: `/create_session` always JSON, FastAPI's 422 for a
 * body that is not JSON or misses `input`/`index`, 308 for unknown paths, 200 for deleting an
 * unknown session, results cut every 4096 characters regardless of whitespace, a `title` in
 * each tool of `guess`, and an unknown tool answered `{"ok": false}`.
 */
export function brokenHandler(inner: FetchHandler): FetchHandler {
  const host = unknownToolAsOkFalse(inner);
  return async (incoming) => {
    let req = incoming;
    const path = new URL(req.url).pathname;
    if (path === "/create_session") return Response.json({ sid: crypto.randomUUID() });
    if (
      req.method === "POST" &&
      (path === "/create" || /^\/[^/]+\/(call|tasks|task|num_tasks|task_range)$/.test(path))
    ) {
      const text = await req.text();
      let body: Record<string, unknown> | undefined;
      try {
        body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
      } catch {
        return fastapi422("json_invalid", ["body", 9], "JSON decode error");
      }
      if (path.endsWith("/call") && body && !("input" in body))
        return fastapi422("missing", ["body", "input"], "Field required");
      if (path.endsWith("/task") && body && !("index" in body))
        return fastapi422("missing", ["body", "index"], "Field required");
      req = new Request(req.url, {
        method: req.method,
        headers: req.headers,
        body: text,
        signal: req.signal,
      });
    }
    const kind = parseOrsPath(path).kind;
    if (kind === "unknown" || kind === "bare")
      return new Response(null, { status: 308, headers: { location: `/math${path}` } });
    const res = await host(req);
    if (path === "/delete" && res.status === 404)
      return Response.json({ sid: req.headers.get("x-session-id") });
    if (path === "/guess/tools") {
      const value = (await res.json()) as { tools: Record<string, unknown>[] };
      return Response.json({ tools: value.tools.map((t) => ({ ...t, title: t.name })) });
    }
    if (
      path.endsWith("/call") &&
      res.body &&
      (res.headers.get("content-type") ?? "").includes("event-stream")
    )
      return new Response(recut(res.body), { status: res.status, headers: res.headers });
    return res;
  };
}

const BARE_PATHS = new Set<string>(ENV_ENDPOINTS);

/**
 * Our host with what the OpenReward client needs added in front: a path without the environment
 * goes to the session's environment, else the one `X-Deployment` names, else the only one; and
 * `/task` and `/task_range` answers carry `env_name`. A server that does all three, for the checks'
 * passing side whatever our host itself does.
 */
export function openRewardHandler(host: FetchHandler, envs: readonly string[]): FetchHandler {
  const sessions = new Map<string, string>();
  return async (incoming) => {
    const url = new URL(incoming.url);
    const sid = incoming.headers.get("x-session-id");
    const body = incoming.method === "POST" ? await incoming.text() : undefined;
    const segment = url.pathname.replace(/^\/+/, "");
    if (BARE_PATHS.has(segment)) {
      const env =
        (sid ? sessions.get(sid) : undefined) ??
        incoming.headers.get("x-deployment") ??
        (envs.length === 1 ? envs[0] : undefined);
      if (env) url.pathname = `/${env}/${segment}`;
    }
    const req = new Request(url, {
      method: incoming.method,
      headers: incoming.headers,
      body,
      signal: incoming.signal,
    });
    const res = await host(req);
    if (url.pathname === "/create" && res.status === 200 && sid) {
      const created = JSON.parse(body ?? "{}") as { env_name?: string };
      sessions.set(sid, created.env_name ?? envs[0]!);
    }
    const named = /^\/([^/]+)\/(task|task_range)$/.exec(url.pathname);
    if (named && res.status === 200) {
      const value = (await res.json()) as Record<string, unknown>;
      return Response.json({ ...value, env_name: named[1] });
    }
    return res;
  };
}
