// Tool inputs declared as raw JSON Schema (defineTool's `inputSchema`): compiled once with AJV
// (draft 2020-12 as Pydantic emits it, or the draft its `$schema` names), with formats, defaults
// filled in, and every failure reported as one readable line naming the offending fields.
import type { ErrorObject, Options } from "ajv";
import Ajv07 from "ajv";
import Ajv2019 from "ajv/dist/2019";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";

export type JsonSchemaCheck = { ok: true; value: unknown } | { ok: false; error: string };

type AjvInstance = InstanceType<typeof Ajv2020>;

const OPTIONS: Options = {
  allErrors: true,
  useDefaults: true,
  // Schemas written for other validators (Pydantic's among them) use keywords and shapes AJV's
  // strict mode refuses; it reports them instead of failing the tool.
  strict: "log",
  strictTypes: false,
  strictTuples: false,
  strictRequired: false,
  allowUnionTypes: true,
  // A schema's `$id` is not registered: redefining the tool (a dev hot reload) must not collide.
  addUsedSchema: false,
};

const instances = new Map<string, AjvInstance>();

/** One AJV instance per draft, shared by every tool of that draft. */
function ajvFor(schema: Record<string, unknown>): AjvInstance {
  const declared = typeof schema.$schema === "string" ? schema.$schema : "";
  const draft = /draft-0[467]/.test(declared) ? "07" : /2019-09/.test(declared) ? "2019" : "2020";
  let ajv = instances.get(draft);
  if (!ajv) {
    const Ctor = draft === "07" ? Ajv07 : draft === "2019" ? Ajv2019 : Ajv2020;
    ajv = new Ctor(OPTIONS) as AjvInstance;
    addFormats(ajv);
    // Pydantic writes OpenAPI's `discriminator` beside `oneOf`: an annotation here, `oneOf` decides.
    ajv.addKeyword({ keyword: "discriminator" });
    instances.set(draft, ajv);
  }
  return ajv;
}

/** Where an error is, as a dotted path (`items.0.sku`), `input` for the whole input. */
function where(path: Array<string | number>): string {
  return path.length ? path.join(".") : "input";
}

function pathOf(instancePath: string): string[] {
  return instancePath
    ? instancePath
        .slice(1)
        .split("/")
        .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    : [];
}

function describe(e: ErrorObject): string {
  const path = pathOf(e.instancePath);
  const p = e.params as Record<string, unknown>;
  if (e.keyword === "required") return `${where([...path, String(p.missingProperty)])}: required`;
  if (e.keyword === "additionalProperties")
    return `${where([...path, String(p.additionalProperty)])}: unknown field`;
  if (e.keyword === "enum")
    return `${where(path)}: must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
  if (e.keyword === "const") return `${where(path)}: must be ${JSON.stringify(p.allowedValue)}`;
  return `${where(path)}: ${e.message ?? e.keyword}`;
}

/**
 * Compiles a JSON Schema (throws AJV's reason when it cannot) and returns a validator of one input:
 * the input (a copy, defaults filled in) or a message naming every offending field, e.g.
 * `size.1: must be >= 1; label: required`. A union's summary ("must match exactly one schema in
 * oneOf") is left out when its branches said more.
 */
export function compileJsonSchema(schema: Record<string, unknown>): (raw: unknown) => JsonSchemaCheck {
  const validate = ajvFor(schema).compile(schema);
  return (raw) => {
    const value = raw === undefined ? undefined : structuredClone(raw);
    if (validate(value)) return { ok: true, value };
    const errors = validate.errors ?? [];
    const summaries = new Set(["anyOf", "oneOf"]);
    const kept = errors.filter(
      (e) =>
        !summaries.has(e.keyword) ||
        !errors.some((o) => !summaries.has(o.keyword) && o.instancePath.startsWith(e.instancePath)),
    );
    return { ok: false, error: [...new Set(kept.map(describe))].join("; ") };
  };
}
