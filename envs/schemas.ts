// `schemas`: a showcase of tool input schemas for the generated forms — strings with limits and
// patterns, numbers, integers, booleans, enums, literals, nested objects, arrays of objects,
// optional/nullable fields, defaults, descriptions, discriminated unions, a recursive schema, and a
// tuple declared with a raw JSON Schema.
import { z } from "zod";
import { defineEnvironment, defineTool, text } from "@/lib/ors/sdk";

/** A readable summary of what a tool received: the parsed input as indented JSON. */
function received(tool: string, input: unknown, extra = ""): { blocks: ReturnType<typeof text>[] } {
  return {
    blocks: [text(`${tool} received:\n${JSON.stringify(input, null, 2)}${extra ? `\n\n${extra}` : ""}`)],
  };
}

const address = z
  .object({
    street: z.string().min(1).describe("Street and number"),
    city: z.string().min(1).describe("City"),
    postcode: z
      .string()
      .regex(/^[0-9]{5}$/, "five digits")
      .describe("Five-digit postcode"),
    country: z.enum(["FR", "DE", "US", "GB", "JP"]).default("FR").describe("Country code"),
  })
  .describe("A postal address");

const lineItem = z.object({
  sku: z
    .string()
    .regex(/^[A-Z]{3}-[0-9]{3}$/, "like ABC-123")
    .describe("Product code, e.g. ABC-123"),
  quantity: z.number().int().min(1).max(99).default(1).describe("How many"),
  unitPrice: z.number().min(0).describe("Price of one, in euros"),
  giftWrap: z.boolean().optional().describe("Wrap this item as a gift"),
});

const payment = z
  .discriminatedUnion("method", [
    z.object({
      method: z.literal("card"),
      cardNumber: z
        .string()
        .regex(/^[0-9]{16}$/, "16 digits")
        .describe("16-digit card number"),
      expiry: z
        .string()
        .regex(/^(0[1-9]|1[0-2])\/[0-9]{2}$/, "MM/YY")
        .describe("Expiry date MM/YY"),
    }),
    z.object({
      method: z.literal("paypal"),
      email: z.email().describe("PayPal account e-mail"),
    }),
    z.object({
      method: z.literal("invoice"),
      billingAddress: address,
      dueDays: z.number().int().min(0).max(90).default(30).describe("Payment due after this many days"),
    }),
  ])
  .describe("How the order is paid");

const createOrder = defineTool({
  description:
    "Create an order: a customer, line items (an array of objects), a shipping address (a nested " +
    "object), a payment method (a discriminated union on `method`) and optional notes.",
  input: z.object({
    customer: z
      .object({
        name: z.string().min(2).max(80).describe("Full name"),
        email: z.email().describe("E-mail address"),
        vip: z.boolean().default(false).describe("VIP customer"),
      })
      .describe("Who orders"),
    items: z.array(lineItem).min(1).max(20).describe("The items ordered (at least one)"),
    shipping: address,
    payment,
    priority: z.enum(["low", "normal", "high"]).default("normal").describe("Handling priority"),
    notes: z.string().max(500).nullable().optional().describe("Free-text notes (optional, may be null)"),
  }),
  run: (input) => {
    const total = input.items.reduce((s, i) => s + i.quantity * i.unitPrice, 0);
    return received(
      "create_order",
      input,
      `Total: ${total.toFixed(2)} EUR for ${input.items.length} line(s).`,
    );
  },
});

const configure = defineTool({
  description:
    "Configure a service: a literal version, numbers with bounds, integers, booleans, an enum, a " +
    "string array with limits, a nullable field and defaults everywhere.",
  input: z.object({
    version: z.literal("v1").describe("Configuration format version (always v1)"),
    name: z
      .string()
      .min(3)
      .max(32)
      .regex(/^[a-z][a-z0-9-]*$/, "lowercase letters, digits and dashes, starting with a letter")
      .describe("Service name"),
    replicas: z.number().int().min(1).max(16).default(2).describe("Number of replicas"),
    cpu: z.number().min(0.1).max(8).default(0.5).describe("CPU cores per replica"),
    ratio: z.number().gt(0).lt(1).optional().describe("Traffic ratio, strictly between 0 and 1"),
    debug: z.boolean().default(false).describe("Verbose logging"),
    logLevel: z.enum(["error", "warn", "info", "debug"]).default("info").describe("Log level"),
    tags: z.array(z.string().min(1).max(20)).max(8).default([]).describe("Labels (up to 8)"),
    timeoutSeconds: z
      .number()
      .int()
      .min(1)
      .nullable()
      .default(null)
      .describe("Request timeout; null for none"),
    mode: z
      .union([z.literal("fast"), z.literal("safe")])
      .default("safe")
      .describe("Rollout mode"),
  }),
  run: (input) => received("configure", input),
});

const nested = defineTool({
  description:
    "A small nested form: a title, an owner object with an optional e-mail, a list of items (objects " +
    "with a label and a quantity) and a flag. Returns what it received.",
  input: z.object({
    title: z.string().min(1).max(100).describe("A title"),
    owner: z
      .object({
        name: z.string().min(1).describe("Owner's name"),
        email: z.email().optional().describe("Owner's e-mail (optional)"),
      })
      .describe("Who owns it"),
    items: z
      .array(
        z.object({
          label: z.string().min(1).describe("Item label"),
          quantity: z.number().int().min(1).default(1).describe("Quantity"),
        }),
      )
      .default([])
      .describe("Items"),
    urgent: z.boolean().default(false).describe("Urgent"),
  }),
  run: (input) =>
    received(
      "nested",
      input,
      `${input.title} — owner ${input.owner.name}, ${input.items.length} item(s)${input.urgent ? ", urgent" : ""}.`,
    ),
});

// A recursive schema (a category tree): zod emits it as a `$ref` to `definitions`. No `.meta({id})`:
// ids live in zod's global registry and a dev hot reload re-running this module would collide.
type Category = { name: string; children: Category[] };
const category: z.ZodType<Category> = z
  .object({
    name: z.string().min(1).describe("Category name"),
    get children() {
      return z.array(category).describe("Sub-categories");
    },
  })
  .describe("A category with sub-categories");

function countNodes(c: Category): number {
  return 1 + c.children.reduce((s, ch) => s + countNodes(ch), 0);
}

const tree = defineTool({
  description:
    "Submit a category tree (a recursive schema with $ref) and a shared sub-schema used twice " +
    "(two addresses). Returns the number of nodes.",
  input: z.object({
    root: category,
    home: address.optional(),
    work: address.optional(),
  }),
  run: (input) => received("tree", input, `${countNodes(input.root)} categories.`),
});

// A raw JSON Schema, served verbatim and validated with AJV: a heterogeneous tuple (`prefixItems`,
// which zod's JSON Schema cannot emit), a set of tags (`uniqueItems`) and a default.
type Place = { position: [number, number, "back" | "front"]; tags: string[]; note?: string };

const place = defineTool<Place>({
  description:
    "Place a sticker at a position given as a tuple [x, y, layer] (JSON Schema `prefixItems`, which " +
    "zod cannot emit), with a set of distinct tags. Declared with a raw JSON Schema.",
  inputSchema: {
    type: "object",
    properties: {
      position: {
        type: "array",
        description: "[x, y, layer]: two coordinates from 0 to 100 and a layer",
        prefixItems: [
          { type: "number", title: "x", minimum: 0, maximum: 100 },
          { type: "number", title: "y", minimum: 0, maximum: 100 },
          { type: "string", title: "layer", enum: ["back", "front"] },
        ],
        items: false,
        minItems: 3,
      },
      tags: {
        type: "array",
        description: "Distinct labels",
        items: { type: "string", minLength: 1 },
        uniqueItems: true,
        default: [],
      },
      note: { type: "string", maxLength: 200, description: "An optional note" },
    },
    required: ["position"],
    additionalProperties: false,
  },
  run: (input) => {
    const [x, y, layer] = input.position;
    return received(
      "place",
      input,
      `Sticker at (${x}, ${y}) on the ${layer} layer, ${input.tags.length} tag(s).`,
    );
  },
});

export const schemas = defineEnvironment({
  name: "schemas",
  description:
    "A showcase of tool input schemas for generated forms: `create_order` (arrays of objects, a " +
    "discriminated union), `configure` (bounds, enums, literals, defaults, nullable), `nested` and " +
    "`tree` (recursive $ref), `place` (a raw JSON Schema with a `prefixItems` tuple). Every tool echoes " +
    "what it received.",
  splits: ["train"],
  listTasks: () => [{ id: 0 }],
  getPrompt: () => "Fill in the forms of the tools; each one answers with a summary of what it received.",
  tools: { create_order: createOrder, configure, nested, tree, place },
});
