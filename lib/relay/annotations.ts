// What a caller may tell the recorder about a request it sends through the relay, beside the ORS
// request itself (FORMAT.md "Annotations"): `x-playground-run` on `/create` tags the episode with
// its run, `x-playground-client` on `/create` with the client that plays it (an MCP client's
// clientInfo, lib/mcp), `x-playground-agent` on `/call` says which policy chose the call (the model's text,
// its call id, its tokens), `x-playground-step` on `/call` says it replays a call of the protocol
// log. The relay never forwards these headers. Isomorphic: the browser and the run executor encode
// them, the relay decodes them, the recorder validates them.
import { z } from "zod";
import {
  type ClientTag,
  clientTagSchema,
  type RunTag,
  runTagSchema,
  type StepAgent,
  type StepOrigin,
  stepAgentSchema,
} from "../trajectory/schema";

export const RUN_HEADER = "x-playground-run";
/** A browser tab names its call's step with this header, to find it in the live feed (`[A-Za-z0-9_-]{8,64}`). */
export const CALL_ID_HEADER = "x-playground-call-id";
export const AGENT_HEADER = "x-playground-agent";
/** On a `/create`: the client that plays the episode, `{name, version}` (an MCP client's clientInfo). */
export const CLIENT_HEADER = "x-playground-client";
/** On a `/call` sent again from the protocol log: `{replayOf: <the logged call's seq>, edited}`. */
export const STEP_HEADER = "x-playground-step";

/** The longest header value read (encoded); longer ones are ignored. */
export const MAX_ANNOTATION_CHARS = 64 * 1024;
/** The longest model message carried by `encodeAgent` (a longer one is cut, saying so). */
export const MAX_AGENT_MESSAGE_CHARS = 16_000;

/** Node's Buffer when there is one (the server: every relayed call), else the browser's way. */
const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;

function toBase64Url(text: string): string {
  if (NodeBuffer) return NodeBuffer.from(text, "utf8").toString("base64url");
  const bytes = new TextEncoder().encode(text);
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(value: string): string | null {
  if (!/^[A-Za-z0-9_-]*$/.test(value)) return null;
  if (NodeBuffer) {
    const text = NodeBuffer.from(value, "base64url").toString("utf8");
    // Invalid UTF-8 decodes to U+FFFD: refused, as the browser's fatal decoder does.
    return text.includes("\uFFFD") &&
      !NodeBuffer.from(text, "utf8").equals(NodeBuffer.from(value, "base64url"))
      ? null
      : text;
  }
  try {
    const bin = atob(value.replace(/-/g, "+").replace(/_/g, "/"));
    const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** A header value: base64url of the JSON (headers carry Latin-1 only). */
export function encodeAnnotation(value: unknown): string {
  return toBase64Url(JSON.stringify(value));
}

/** The JSON a header carries, or undefined when it is absent, too long or not base64url JSON. */
export function decodeAnnotation(header: string | null): unknown {
  if (!header || header.length > MAX_ANNOTATION_CHARS) return undefined;
  const text = fromBase64Url(header.trim());
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** `x-playground-agent` for a call: the message cut to MAX_AGENT_MESSAGE_CHARS. */
export function encodeAgent(agent: StepAgent): string {
  const message =
    agent.message !== undefined && agent.message.length > MAX_AGENT_MESSAGE_CHARS
      ? `${agent.message.slice(0, MAX_AGENT_MESSAGE_CHARS)}… [cut: ${agent.message.length} characters]`
      : agent.message;
  return encodeAnnotation({ ...agent, ...(message !== undefined ? { message } : {}) });
}

export function encodeRunTag(tag: RunTag): string {
  return encodeAnnotation(tag);
}

export function encodeClientTag(tag: ClientTag): string {
  return encodeAnnotation(tag);
}

/** A decoded `x-playground-client`, or null when it is not one. */
export function readClientTag(value: unknown): ClientTag | null {
  const r = clientTagSchema.safeParse(value);
  return r.success ? r.data : null;
}

/** A decoded `x-playground-agent`, or null when it is not one. */
export function readAgent(value: unknown): StepAgent | null {
  const r = stepAgentSchema.safeParse(value);
  return r.success ? r.data : null;
}

/** A decoded `x-playground-run`, or null when it is not one. */
export function readRunTag(value: unknown): RunTag | null {
  const r = runTagSchema.safeParse(value);
  return r.success ? r.data : null;
}

/** What `x-playground-step` carries. */
export const stepAnnotationSchema = z.strictObject({
  replayOf: z.number().int().positive(),
  edited: z.boolean(),
});
export type StepAnnotation = z.infer<typeof stepAnnotationSchema>;

/** `x-playground-step` for a call replayed from the protocol log. */
export function encodeStepAnnotation(step: StepAnnotation): string {
  return encodeAnnotation(step);
}

/** The step's origin a decoded `x-playground-step` names, or null when it is not one. */
export function readStepOrigin(value: unknown): StepOrigin | null {
  const r = stepAnnotationSchema.safeParse(value);
  return r.success ? { kind: "replay", exchange: r.data.replayOf, edited: r.data.edited } : null;
}
