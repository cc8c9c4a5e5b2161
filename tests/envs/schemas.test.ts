import Ajv from "ajv";
import { describe, expect, it } from "vitest";
import { schemas } from "@/envs/schemas";
import { openDirectSession, resultText } from "@/envs/shared/run-tool";

type Json = Record<string, unknown>;

/** Every sub-schema of a JSON Schema, depth first. */
function walk(node: unknown, out: Json[] = []): Json[] {
  if (Array.isArray(node)) for (const n of node) walk(n, out);
  else if (node && typeof node === "object") {
    out.push(node as Json);
    for (const v of Object.values(node)) walk(v, out);
  }
  return out;
}

describe("schemas environment", () => {
  const all = [...schemas.tools.values()].flatMap((t) => walk(t.inputSchema));
  const has = (pred: (n: Json) => boolean) => all.some(pred);

  it("covers the JSON Schema constructs the forms must handle", () => {
    expect(has((n) => n.type === "string" && "minLength" in n && "maxLength" in n)).toBe(true);
    expect(has((n) => n.type === "string" && "pattern" in n)).toBe(true);
    expect(has((n) => n.type === "number" && "minimum" in n)).toBe(true);
    expect(has((n) => n.type === "number" && "exclusiveMinimum" in n)).toBe(true);
    expect(has((n) => n.type === "integer")).toBe(true);
    expect(has((n) => n.type === "boolean")).toBe(true);
    expect(has((n) => Array.isArray(n.enum))).toBe(true);
    expect(has((n) => "const" in n)).toBe(true);
    expect(has((n) => n.type === "object" && walk(n.properties).some((p) => p.type === "object"))).toBe(true);
    expect(has((n) => n.type === "array" && (n.items as Json)?.type === "object")).toBe(true);
    expect(has((n) => n.type === "array" && (n.items as Json)?.type === "string")).toBe(true);
    expect(has((n) => Array.isArray(n.anyOf) && n.anyOf.some((x: Json) => x.type === "null"))).toBe(true);
    expect(has((n) => "default" in n)).toBe(true);
    expect(has((n) => typeof n.description === "string")).toBe(true);
    expect(has((n) => Array.isArray(n.oneOf))).toBe(true);
    expect(has((n) => typeof n.$ref === "string")).toBe(true);
    expect(has((n) => n.definitions !== undefined || n.$defs !== undefined)).toBe(true);
    // Optional fields: some property of some object is not required.
    expect(
      has(
        (n) =>
          n.type === "object" &&
          Object.keys((n.properties as Json) ?? {}).some(
            (k) => !((n.required as string[]) ?? []).includes(k),
          ),
      ),
    ).toBe(true);
  });

  it("accepts a valid order with AJV and the tool alike, and summarizes it", async () => {
    const order = {
      customer: { name: "Ada Lovelace", email: "ada@example.com" },
      items: [{ sku: "ABC-123", quantity: 2, unitPrice: 9.5 }],
      shipping: { street: "1 Rue de Rivoli", city: "Paris", postcode: "75001" },
      payment: { method: "paypal", email: "ada@example.com" },
    };
    const ajv = new Ajv({ strict: false, formats: { email: /^[^@\s]+@[^@\s]+$/ } });
    const validate = ajv.compile(schemas.tools.get("create_order")!.inputSchema!);
    expect(validate(order), ajv.errorsText(validate.errors)).toBe(true);
    const s = await openDirectSession(schemas, { id: 0 });
    const r = await s.call("create_order", order);
    if (!r.ok) throw new Error(r.error);
    expect(resultText(r.result)).toContain("Total: 19.00 EUR");
    expect(resultText(r.result)).toContain('"priority": "normal"');
  });

  it("names nested fields in validation errors", async () => {
    const s = await openDirectSession(schemas, { id: 0 });
    const r = await s.call("create_order", {
      customer: { name: "A", email: "x" },
      items: [{ sku: "bad", unitPrice: 1 }],
      shipping: { street: "s", city: "c", postcode: "1" },
      payment: { method: "card", cardNumber: "1", expiry: "13/99" },
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    for (const f of [
      "customer.name",
      "customer.email",
      "items.0.sku",
      "shipping.postcode",
      "payment.cardNumber",
    ]) {
      expect(r.error).toContain(`${f}:`);
    }
  });

  it("fills the nested tool with defaults and accepts the recursive tree", async () => {
    const s = await openDirectSession(schemas, { id: 0 });
    const r = await s.call("nested", { title: "Demo", owner: { name: "Bo" }, items: [{ label: "pen" }] });
    if (!r.ok) throw new Error(r.error);
    expect(resultText(r.result)).toContain("Demo — owner Bo, 1 item(s).");
    expect(resultText(r.result)).toContain('"quantity": 1');
    const tree = { root: { name: "a", children: [{ name: "b", children: [{ name: "c", children: [] }] }] } };
    const ajv = new Ajv({ strict: false, formats: { email: /^[^@\s]+@[^@\s]+$/ } });
    expect(ajv.validate(schemas.tools.get("tree")!.inputSchema!, tree)).toBe(true);
    const t = await s.call("tree", tree);
    if (!t.ok) throw new Error(t.error);
    expect(resultText(t.result)).toContain("3 categories.");
  });
});
