// Plain `Request`s to a host handler and what its answers carry: JSON, error details, SSE frames
// read exactly, a tool's result rebuilt from its frames; an episode opened; a bounded wait.
import { expect } from "vitest";
import type { OrsHandler } from "@/lib/ors/host";
import { readSseFrames, type SseFrame } from "@/lib/ors/protocol";

export interface Send {
  method?: string;
  sid?: string;
  body?: unknown;
  rawBody?: BodyInit;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

const BASE = "http://ors.test";

export function send(h: OrsHandler, path: string, o: Send = {}): Promise<Response> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.sid !== undefined) headers["x-session-id"] = o.sid;
  let body: BodyInit | undefined = o.rawBody;
  if (o.body !== undefined) {
    body = JSON.stringify(o.body);
    headers["content-type"] = "application/json";
  }
  const method = o.method ?? (body !== undefined ? "POST" : "GET");
  return h(new Request(`${BASE}${path}`, { method, headers, body, signal: o.signal }));
}

export async function jsonOf(res: Response): Promise<unknown> {
  expect(res.headers.get("content-type")).toContain("application/json");
  return res.json();
}

/** Expects an error response with exactly this status and a string detail matching `detail`. */
export async function expectError(res: Response | Promise<Response>, status: number, detail: RegExp) {
  const r = await res;
  const body = (await r.json()) as { detail: unknown };
  expect({ status: r.status, detail: body.detail }).toMatchObject({
    status,
    detail: expect.stringMatching(detail),
  });
}

export async function framesOf(res: Response): Promise<SseFrame[]> {
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const out: SseFrame[] = [];
  for await (const f of readSseFrames(res.body!)) out.push(f);
  return out;
}

export function ev(event: string, data: string): SseFrame {
  return { kind: "event", event, data, id: undefined };
}

/** Reassembles `chunk`...`end` frames into the RunToolOutput they carry. */
export function resultOf(frames: SseFrame[]): unknown {
  const events = frames.filter((f) => f.kind === "event");
  const end = events.at(-1);
  if (end?.kind !== "event" || end.event !== "end")
    throw new Error(`no end event: ${JSON.stringify(frames)}`);
  const data = events
    .filter((e) => e.kind === "event" && (e.event === "chunk" || e.event === "end"))
    .map((e) => (e as { data: string }).data)
    .join("");
  return JSON.parse(data);
}

/** create_session + create; returns the sid. */
export async function newEpisode(
  h: OrsHandler,
  create: Record<string, unknown>,
  headers?: Record<string, string>,
) {
  const { sid } = (await (await send(h, "/create_session", { method: "POST" })).json()) as { sid: string };
  const res = await send(h, "/create", { sid, body: create, headers });
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ sid });
  return sid;
}

/** Polls `check` until it returns true (bounded: fails after `ms`). */
export async function until(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 5));
  }
}
