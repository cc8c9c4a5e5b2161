// A readable view of a tool's JSON Schema: each field with its type, required marker, description,
// enum values, constraints and defaults; nested objects, arrays of objects, $ref/$defs and
// anyOf/oneOf (Pydantic's nullable `anyOf [T, null]` reads as "T | null") are shown indented.
import { Badge } from "@/components/ui/badge";
import { cn } from "@/lib/ui/cn";

type Schema = Record<string, unknown>;

const MAX_DEPTH = 8;

function isObj(v: unknown): v is Schema {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function resolveRef(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith("#/")) return undefined;
  let cur: unknown = root;
  for (const part of ref.slice(2).split("/")) {
    const key = part.replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isObj(cur)) return undefined;
    cur = cur[key];
  }
  return isObj(cur) ? cur : undefined;
}

function refName(ref: string): string {
  return ref.split("/").pop() ?? ref;
}

/** A one-line type for a schema: `string`, `integer`, `"a" | "b"`, `Address`, `array<Item>`, `string | null`. */
export function typeLabel(schema: unknown, root: Schema, seen: Set<string> = new Set()): string {
  if (schema === true || schema === undefined) return "any";
  if (schema === false) return "never";
  if (!isObj(schema)) return "any";
  if (typeof schema.$ref === "string") return refName(schema.$ref);
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  const union = (schema.anyOf ?? schema.oneOf) as unknown;
  if (Array.isArray(union)) return union.map((s) => typeLabel(s, root, seen)).join(" | ");
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1) return typeLabel(schema.allOf[0], root, seen);
  const t = schema.type;
  if (Array.isArray(t)) return t.join(" | ");
  if (t === "array") {
    const items = schema.items;
    return `array<${items ? typeLabel(items, root, seen) : "any"}>`;
  }
  if (typeof t === "string") return schema.format ? `${t} (${schema.format})` : t;
  if (isObj(schema.properties)) return "object";
  return "any";
}

function constraints(schema: Schema): string[] {
  const out: string[] = [];
  const add = (key: string, label: string) => {
    const v = schema[key];
    // zod's int() bounds are ±MAX_SAFE_INTEGER: noise, not a constraint anyone chose.
    if (v === undefined || v === Number.MAX_SAFE_INTEGER || v === Number.MIN_SAFE_INTEGER) return;
    out.push(`${label} ${JSON.stringify(v)}`);
  };
  add("minimum", "≥");
  add("exclusiveMinimum", ">");
  add("maximum", "≤");
  add("exclusiveMaximum", "<");
  add("minLength", "min length");
  add("maxLength", "max length");
  add("pattern", "pattern");
  add("minItems", "min items");
  add("maxItems", "max items");
  add("multipleOf", "multiple of");
  if (schema.uniqueItems === true) out.push("unique items");
  return out;
}

/** The sub-schemas worth expanding below a field: object properties, array items, union members. */
function children(
  schema: Schema,
  root: Schema,
  seen: Set<string>,
): { label?: string; schema: Schema; seen: Set<string> }[] {
  if (typeof schema.$ref === "string") {
    if (seen.has(schema.$ref)) return [];
    const target = resolveRef(root, schema.$ref);
    if (!target) return [];
    const next = new Set(seen).add(schema.$ref);
    return [{ schema: target, seen: next }];
  }
  if (isObj(schema.properties)) return [{ schema, seen }];
  if (schema.type === "array" && isObj(schema.items)) {
    const items = schema.items;
    const inner = children(items, root, seen);
    return inner.length ? inner.map((c) => ({ ...c, label: c.label ?? "each item" })) : [];
  }
  const union = (schema.anyOf ?? schema.oneOf) as unknown;
  if (Array.isArray(union)) {
    const members = union.filter((s) => isObj(s) && s.type !== "null") as Schema[];
    const out: { label?: string; schema: Schema; seen: Set<string> }[] = [];
    for (const m of members) {
      for (const c of children(m, root, seen))
        out.push({ ...c, label: members.length > 1 ? `option ${typeLabel(m, root)}` : c.label });
    }
    return out;
  }
  if (Array.isArray(schema.allOf)) {
    return (schema.allOf as unknown[]).filter(isObj).flatMap((s) => children(s, root, seen));
  }
  return [];
}

function Properties({
  schema,
  root,
  seen,
  depth,
}: {
  schema: Schema;
  root: Schema;
  seen: Set<string>;
  depth: number;
}) {
  const props = isObj(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const names = Object.keys(props);
  if (names.length === 0) {
    return <p className="py-1 text-xs italic text-zinc-500">No fields.</p>;
  }
  return (
    <ul className="divide-y divide-zinc-100 dark:divide-zinc-800/70">
      {names.map((name) => (
        <Field
          key={name}
          name={name}
          schema={props[name]}
          required={required.has(name)}
          root={root}
          seen={seen}
          depth={depth}
        />
      ))}
    </ul>
  );
}

function Field({
  name,
  schema,
  required,
  root,
  seen,
  depth,
}: {
  name: string;
  schema: unknown;
  required: boolean;
  root: Schema;
  seen: Set<string>;
  depth: number;
}) {
  const s = isObj(schema) ? schema : {};
  const target = typeof s.$ref === "string" ? (resolveRef(root, s.$ref) ?? {}) : {};
  const description = (s.description ?? s.title ?? target.description) as string | undefined;
  const enumValues = (Array.isArray(s.enum) ? s.enum : Array.isArray(target.enum) ? target.enum : null) as
    | unknown[]
    | null;
  const nested = depth < MAX_DEPTH ? children(s, root, seen) : [];
  const cons = constraints(s);
  return (
    <li className="py-1.5">
      <div className="flex flex-wrap items-baseline gap-x-2 gap-y-0.5">
        <code className="font-mono text-xs font-semibold text-zinc-900 dark:text-zinc-100">{name}</code>
        <span className="font-mono text-[11px] text-indigo-700 dark:text-indigo-300">
          {typeLabel(s, root)}
        </span>
        {required ? (
          <Badge tone="amber">required</Badge>
        ) : (
          <span className="text-[11px] text-zinc-500 dark:text-zinc-400">optional</span>
        )}
        {s.default !== undefined && (
          <span className="font-mono text-[11px] text-zinc-500">default {JSON.stringify(s.default)}</span>
        )}
        {cons.map((c) => (
          <span key={c} className="font-mono text-[11px] text-zinc-500">
            {c}
          </span>
        ))}
      </div>
      {description && <p className="mt-0.5 text-xs text-zinc-600 dark:text-zinc-400">{description}</p>}
      {enumValues && enumValues.length > 0 && !Array.isArray(s.anyOf) && (
        <div className="mt-1 flex flex-wrap gap-1">
          <span className="sr-only">Allowed values:</span>
          {enumValues.map((v) => (
            <Badge key={JSON.stringify(v)} className="font-mono">
              {JSON.stringify(v)}
            </Badge>
          ))}
        </div>
      )}
      {nested.length > 0 && (
        <div className="mt-1 space-y-1">
          {nested.map((c, i) => (
            <div key={i} className="ml-1 border-l-2 border-zinc-200 pl-3 dark:border-zinc-800">
              {c.label && (
                <p className="pt-1 text-[11px] font-medium uppercase tracking-wide text-zinc-500">
                  {c.label}
                </p>
              )}
              <Properties schema={c.schema} root={root} seen={c.seen} depth={depth + 1} />
            </div>
          ))}
        </div>
      )}
    </li>
  );
}

/** The readable view of one tool's `input_schema` (null/absent → "no input"). */
export function SchemaView({ schema, className }: { schema: Schema | null | undefined; className?: string }) {
  if (!schema || (isObj(schema.properties) && Object.keys(schema.properties).length === 0 && !schema.$ref)) {
    return <p className={cn("text-xs italic text-zinc-500", className)}>This tool takes no input.</p>;
  }
  const top = children(schema, schema, new Set());
  return (
    <div className={className}>
      {top.length === 0 ? (
        <p className="font-mono text-xs text-zinc-600 dark:text-zinc-400">{typeLabel(schema, schema)}</p>
      ) : (
        top.map((c, i) => (
          <div key={i}>
            {c.label && (
              <p className="text-[11px] font-medium uppercase tracking-wide text-zinc-500">{c.label}</p>
            )}
            <Properties schema={c.schema} root={schema} seen={c.seen} depth={0} />
          </div>
        ))
      )}
    </div>
  );
}
