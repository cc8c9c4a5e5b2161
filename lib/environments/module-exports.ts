// Which environments an author's module exports (ORS_ENVS, `--env`): its default export (one
// environment or an array of them), else every named export that is an environment or an array of
// environments. Anything else is a clear error naming the module, never a silent empty host.
import type { AnyEnvironment } from "@/lib/ors/sdk";

/** A module that cannot be hosted: missing, failing to load, exporting no environments, a clash. */
export class EnvironmentModuleError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "EnvironmentModuleError";
  }
}

function isEnvironment(v: unknown): v is AnyEnvironment {
  return typeof v === "object" && v !== null && (v as { kind?: unknown }).kind === "ors-environment";
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object" && typeof (v as { kind?: unknown }).kind === "string")
    return `an object of kind ${JSON.stringify((v as { kind: string }).kind)}`;
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

const HOW =
  "export environments made with defineEnvironment (from ors-playground/sdk): `export default [myEnv]`, `export default myEnv`, or named exports";

/**
 * The module's exports with promises settled: an environment that must do work before it exists
 * (`defineMcpEnvironment` lists its server's tools) may be exported without `await`.
 */
export async function settleExports(namespace: Record<string, unknown>): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(namespace))
    out[key] =
      value !== null && typeof value === "object" && typeof (value as { then?: unknown }).then === "function"
        ? await value
        : value;
  return out;
}

/**
 * The environments of a loaded module namespace, in order: the default export's, else the named
 * exports' (in name order; the same object exported twice counts once).
 */
export function environmentsOfModule(namespace: Record<string, unknown>, label: string): AnyEnvironment[] {
  // A CommonJS-shaped module seen from ESM puts everything under `default`.
  const hasDefault = "default" in namespace && namespace.default !== undefined;
  if (hasDefault) {
    const d = namespace.default;
    if (isEnvironment(d)) return [d];
    if (Array.isArray(d)) {
      const bad = d.findIndex((e) => !isEnvironment(e));
      if (bad >= 0)
        throw new EnvironmentModuleError(
          `${label}: the default export's item ${bad} is ${describe(d[bad])}, not an environment: ${HOW}`,
        );
      if (d.length === 0)
        throw new EnvironmentModuleError(`${label}: the default export is an empty array: ${HOW}`);
      return d;
    }
    const named = fromNamed(d as Record<string, unknown>);
    if (typeof d === "object" && d !== null && named.length > 0) return named;
    throw new EnvironmentModuleError(
      `${label}: the default export is ${describe(d)}, not an environment: ${HOW}`,
    );
  }
  const named = fromNamed(namespace);
  if (named.length === 0) throw new EnvironmentModuleError(`${label} exports no environments: ${HOW}`);
  return named;
}

function fromNamed(namespace: Record<string, unknown>): AnyEnvironment[] {
  const out: AnyEnvironment[] = [];
  for (const key of Object.keys(namespace).sort()) {
    if (key === "default") continue;
    const v = namespace[key];
    const items = isEnvironment(v)
      ? [v]
      : Array.isArray(v) && v.length > 0 && v.every(isEnvironment)
        ? v
        : [];
    for (const e of items) if (!out.includes(e)) out.push(e);
  }
  return out;
}
