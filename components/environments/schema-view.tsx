// A readable view of a tool's input schema: each field with its type, required or optional, its
// default, description, enum values and constraints; nested objects, array items, `$ref`s and
// union options indented below it. It reads the schema as the tool's form does (prepareSchema), so
// both agree on what is required, what has a default and how a union's options are named
// (`kind = circle`); generators' internal names (zod's `__schema0`) are never shown.
import { prepareSchema } from "@/components/schema-form/prepare-schema";
import { deref, isObj, refName, type Schema, takesNoInput } from "@/components/schema-form/schema-utils";
import { Badge } from "@/components/ui/badge";
import type { JsonObject } from "@/lib/ors/protocol";
import { cn } from "@/lib/ui/cn";

const MAX_DEPTH = 8;

/** Union options with `null` last (`Point | null`). */
function unionOptions(schema: Schema): Schema[] | null {
  const opts = (schema.anyOf ?? schema.oneOf) as unknown;
  if (!Array.isArray(opts)) return null;
  const list = opts.filter(isObj);
  return [...list.filter((o) => o.type !== "null"), ...list.filter((o) => o.type === "null")];
}

/**
 * A one-line type: `string`, `integer`, `"a" | "b"`, `Slot`, `array<Item>`, `[number, number]`,
 * `map<number>`, `string | null`, `kind = circle | kind = rect`.
 */
export function typeLabel(schema: unknown, root: Schema): string {
  if (schema === true || schema === undefined) return "any";
  if (schema === false) return "never";
  if (!isObj(schema)) return "any";
  if (typeof schema.$ref === "string") return refName(root, schema.$ref);
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  const union = unionOptions(schema);
  if (union)
    return union.map((s) => (typeof s.title === "string" ? s.title : typeLabel(s, root))).join(" | ");
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1) return typeLabel(schema.allOf[0], root);
  const t = schema.type;
  if (Array.isArray(t)) return t.join(" | ");
  if (t === "array") {
    if (Array.isArray(schema.items)) return `[${schema.items.map((i) => typeLabel(i, root)).join(", ")}]`;
    return `array<${schema.items ? typeLabel(schema.items, root) : "any"}>`;
  }
  if ((t === "object" || t === undefined) && isObj(schema.additionalProperties) && !isObj(schema.properties))
    return `map<${typeLabel(schema.additionalProperties, root)}>`;
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
  if (!Array.isArray(schema.items)) {
    add("minItems", "min items");
    add("maxItems", "max items");
  }
  add("multipleOf", "multiple of");
  if (schema.uniqueItems === true) out.push("unique items");
  return out;
}

type Nested = { label?: string; schema: Schema; seen: Set<string> };

/** The sub-schemas worth expanding below a field: object properties, items, map values, union options. */
function children(schema: Schema, root: Schema, seen: Set<string>): Nested[] {
  if (typeof schema.$ref === "string") {
    if (seen.has(schema.$ref)) return [];
    const target = deref(root, { $ref: schema.$ref });
    return children(target, root, new Set(seen).add(schema.$ref));
  }
  if (isObj(schema.properties) && Object.keys(schema.properties).length) return [{ schema, seen }];
  if (schema.type === "array" && Array.isArray(schema.items)) {
    return schema.items
      .filter(isObj)
      .flatMap((item, i) =>
        children(item, root, seen).map((c) => ({ ...c, label: c.label ?? `item ${i + 1}` })),
      );
  }
  if (schema.type === "array" && isObj(schema.items)) {
    return children(schema.items, root, seen).map((c) => ({ ...c, label: c.label ?? "each item" }));
  }
  if (isObj(schema.additionalProperties)) {
    return children(schema.additionalProperties, root, seen).map((c) => ({
      ...c,
      label: c.label ?? "each value",
    }));
  }
  const union = unionOptions(schema);
  if (union) {
    const members = union.filter((s) => s.type !== "null");
    return members.flatMap((m) =>
      children(m, root, seen).map((c) => ({
        ...c,
        label:
          members.length > 1 ? `when ${typeof m.title === "string" ? m.title : typeLabel(m, root)}` : c.label,
      })),
    );
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
  const target = typeof s.$ref === "string" ? deref(root, s) : s;
  const description = (s.description ?? target.description) as string | undefined;
  const enumValues = (Array.isArray(target.enum) ? target.enum : null) as unknown[] | null;
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
      {description && (
        <p className="mt-0.5 whitespace-pre-line text-xs text-zinc-600 dark:text-zinc-400">{description}</p>
      )}
      {enumValues && enumValues.length > 1 && (
        <div className="mt-1 flex flex-wrap gap-1">
          <span className="sr-only">Allowed values:</span>
          {enumValues
            .filter((v) => v !== null || !Array.isArray(s.type))
            .map((v) => (
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
              {c.label && <p className="pt-1 font-mono text-[11px] font-medium text-zinc-500">{c.label}</p>}
              <Properties schema={c.schema} root={root} seen={c.seen} depth={depth + 1} />
            </div>
          ))}
        </div>
      )}
    </li>
  );
}

/** The readable view of one tool's `input_schema` ("takes no input" when it has none). */
export function SchemaView({ schema, className }: { schema: Schema | null | undefined; className?: string }) {
  if (takesNoInput(schema)) {
    return <p className={cn("text-xs italic text-zinc-500", className)}>This tool takes no input.</p>;
  }
  const prepared = prepareSchema(schema as JsonObject) as Schema;
  const top = children(prepared, prepared, new Set());
  return (
    <div className={className}>
      {typeof prepared.description === "string" && (
        <p className="mb-1 whitespace-pre-line text-xs text-zinc-600 dark:text-zinc-400">
          {prepared.description}
        </p>
      )}
      {top.length === 0 ? (
        <p className="font-mono text-xs text-zinc-600 dark:text-zinc-400">{typeLabel(prepared, prepared)}</p>
      ) : (
        top.map((c, i) => (
          <div key={i}>
            {c.label && <p className="font-mono text-[11px] font-medium text-zinc-500">{c.label}</p>}
            <Properties schema={c.schema} root={prepared} seen={c.seen} depth={0} />
          </div>
        ))
      )}
    </div>
  );
}
