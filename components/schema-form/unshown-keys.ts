// Which keys of a tool's input the generated form has no field for: an object's key that is neither
// one of its `properties` nor an entry of a map (`additionalProperties` schema). The form keeps such
// keys in the value and sends them as typed (the JSON tab says so), unless the object sets
// `additionalProperties: false`, which refuses them (the server would too). Read on a prepared
// schema (prepare-schema.ts): draft-7 tuples, `$ref`s into `$defs`/`definitions`, unions.
import { deref, findDiscriminator, isObj, type Schema, tagValue } from "./schema-utils";

export interface UnshownKey {
  /** The path of the key from the input's root (`["shape", "colour"]`). */
  path: (string | number)[];
  /** `additionalProperties: false` on its object: the schema refuses it. */
  refused: boolean;
}

/** The option of a union that a value takes: by its tag, else the one whose properties know most of its keys. */
function chosenOption(
  root: Schema,
  options: Schema[],
  value: Record<string, unknown>,
  hint: unknown,
): Schema | null {
  const resolved = options.map((o) => deref(root, o));
  const tag = findDiscriminator(root, options, hint);
  if (tag !== undefined) {
    const byTag = resolved.find(
      (o) =>
        isObj(o.properties) && JSON.stringify(tagValue(o.properties[tag])) === JSON.stringify(value[tag]),
    );
    if (byTag) return byTag;
  }
  const objects = resolved.filter(
    (o) => o.type === "object" || isObj(o.properties) || o.additionalProperties !== undefined,
  );
  let best: Schema | null = null;
  let bestScore = -1;
  for (const o of objects) {
    const props = isObj(o.properties) ? o.properties : {};
    const score = Object.keys(value).filter((k) => k in props).length;
    if (score > bestScore) {
      best = o;
      bestScore = score;
    }
  }
  return best;
}

function walk(
  root: Schema,
  raw: unknown,
  value: unknown,
  path: (string | number)[],
  out: UnshownKey[],
  depth: number,
): void {
  if (!isObj(raw) || depth > 64) return;
  const schema = deref(root, raw);
  if (Array.isArray(value)) {
    if (Array.isArray(schema.items)) {
      value.forEach((v, i) => {
        const s =
          i < (schema.items as unknown[]).length ? (schema.items as unknown[])[i] : schema.additionalItems;
        walk(root, s, v, [...path, i], out, depth + 1);
      });
    } else if (isObj(schema.items)) {
      for (const [i, v] of value.entries()) walk(root, schema.items, v, [...path, i], out, depth + 1);
    }
    return;
  }
  if (!isObj(value)) return;
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.every(isObj)) {
      const option = chosenOption(root, options as Schema[], value, schema.discriminator);
      if (option) walk(root, option, value, path, out, depth + 1);
      return;
    }
  }
  // Compositions and conditionals are not drawn as fields of their own: nothing to say about them.
  if (schema.allOf !== undefined || schema.if !== undefined || schema.patternProperties !== undefined) return;
  const props = isObj(schema.properties) ? schema.properties : {};
  const ap = schema.additionalProperties;
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    if (Object.hasOwn(props, k)) walk(root, props[k], v, [...path, k], out, depth + 1);
    else if (isObj(ap)) walk(root, ap, v, [...path, k], out, depth + 1);
    else if (ap !== true) out.push({ path: [...path, k], refused: ap === false });
  }
}

/** The keys of `value` the form built from `schema` (prepared) does not show, in document order. */
export function unshownKeys(schema: Schema, value: unknown): UnshownKey[] {
  const out: UnshownKey[] = [];
  walk(schema, schema, value, [], out, 0);
  return out;
}

/** A key's path as people read it: `shape.colour`, `items[2].note`. */
export function keyPathText(path: (string | number)[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");
}
