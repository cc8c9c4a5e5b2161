// The schema helpers shared by the form, the Tools tab and the tool picker, on Pydantic 2.13's own
// output (tests/fixtures/pydantic-tool-schemas.json) and on zod's.
import { describe, expect, it } from "vitest";
import {
  dedent,
  findDiscriminator,
  isFreeText,
  optionTitle,
  reflow,
  refName,
  type Schema,
  takesNoInput,
  titleHint,
} from "@/components/schema-form/schema-utils";
import fixture from "../../fixtures/pydantic-tool-schemas.json";

const tools = fixture.tools as { name: string; description: string; input_schema: Schema | null }[];
const schemaOf = (name: string) => tools.find((t) => t.name === name)!.input_schema as Schema;

describe("takesNoInput", () => {
  it("is true for input_schema null and for empty objects, with or without additionalProperties: false", () => {
    const none = tools.filter((t) => takesNoInput(t.input_schema)).map((t) => t.name);
    expect(none.sort()).toEqual(["null_input", "observe", "view_state"]);
    expect(takesNoInput(undefined)).toBe(true);
    expect(takesNoInput({ type: "object" })).toBe(true);
    expect(takesNoInput({ type: "object", properties: {}, additionalProperties: false })).toBe(true);
  });

  it("is false for a map, a union, a $ref to a model with fields, or any property", () => {
    expect(takesNoInput(schemaOf("dispatch"))).toBe(false);
    expect(takesNoInput({ type: "object", additionalProperties: { type: "number" } })).toBe(false);
    expect(takesNoInput({ anyOf: [{ type: "object" }, { type: "null" }] })).toBe(false);
    expect(takesNoInput({ $ref: "#/$defs/A", $defs: { A: { properties: { a: { type: "string" } } } } })).toBe(
      false,
    );
    expect(takesNoInput({ $ref: "#/$defs/A", $defs: { A: { properties: {} } } })).toBe(true);
  });
});

describe("dedent", () => {
  it("removes a Python docstring's indentation (the first line has none)", () => {
    expect(dedent(schemaOf("plan") && tools.find((t) => t.name === "plan")!.description)).toBe(
      "Submit the plan for every slot.\nReturns the new state, a reward and whether the episode finished.",
    );
    expect(dedent("\n    Line one.\n      indented.\n    Line two.\n  ")).toBe(
      "Line one.\n  indented.\nLine two.",
    );
    expect(dedent("plain")).toBe("plain");
  });
});

describe("names shown for schemas", () => {
  it("hints a model's title only when it is not generated from the field's name", () => {
    expect(titleHint("slot_1", "Slot")).toBe("Slot");
    expect(titleHint("item_id", "Item Id")).toBeUndefined();
    expect(titleHint("power_mw", "Power Mw")).toBeUndefined();
    expect(titleHint("x", undefined)).toBeUndefined();
  });

  it("never shows a generator's internal definition name (zod's __schema0)", () => {
    const root = {
      $ref: "#/definitions/__schema0",
      definitions: { __schema0: { type: "object", properties: { name: { type: "string" } } } },
    };
    expect(refName(root, "#/definitions/__schema0")).toBe("object");
    expect(refName(schemaOf("tree"), "#/$defs/TreeNode")).toBe("TreeNode");
  });

  it("reads a discriminated union by its tag (kind = circle) and a nullable one by its types", () => {
    const draw = schemaOf("draw");
    const shape = (draw.properties as Schema).shape as Schema;
    const disc = findDiscriminator(draw, shape.oneOf as Schema[], shape.discriminator);
    expect(disc).toBe("kind");
    expect((shape.oneOf as Schema[]).map((o) => optionTitle(draw, o, disc))).toEqual([
      "kind = circle",
      "kind = rect",
    ]);
    const anchor = (draw.properties as Schema).anchor as Schema;
    expect((anchor.anyOf as Schema[]).map((o) => optionTitle(draw, o))).toEqual(["Point", "null"]);
    // zod's discriminated unions have no `discriminator` keyword: the tag is found by its constants.
    const zodUnion = [
      { type: "object", properties: { method: { const: "card" } } },
      { type: "object", properties: { method: { const: "paypal" } } },
    ];
    expect(findDiscriminator({}, zodUnion)).toBe("method");
  });
});

describe("isFreeText", () => {
  it("is a string whose name, title or description says notes, text, message, content or body", () => {
    expect(isFreeText({ type: "string" })).toBe(false);
    expect(isFreeText({ type: "string" }, "item_id")).toBe(false);
    expect(isFreeText({ type: "string", description: "low | medium | high" }, "level")).toBe(false);
    expect(isFreeText({ type: "string" }, "notes")).toBe(true);
    expect(isFreeText({ type: "string" }, "messageBody")).toBe(true);
    expect(isFreeText({ type: "string" }, "reply_text")).toBe(true);
    expect(isFreeText({ type: "string", title: "Content" }, "c")).toBe(true);
    expect(isFreeText({ type: "string", description: "Free-text notes; several lines are normal." })).toBe(
      true,
    );
    expect(isFreeText({ type: "string", description: "The context" })).toBe(false); // a word, not a part of one
  });

  it("follows maxLength: a few hundred or more is free text, less a short value", () => {
    expect(isFreeText({ type: "string", maxLength: 500 })).toBe(true);
    expect(isFreeText({ type: "string", maxLength: 256 }, "id")).toBe(true);
    expect(isFreeText({ type: "string", maxLength: 255 }, "notes")).toBe(false);
    expect(isFreeText({ type: "string", maxLength: 32 })).toBe(false);
  });

  it("is never an enum, a format, a pattern or another type", () => {
    expect(isFreeText({ type: "string", enum: ["a"] }, "notes")).toBe(false);
    expect(isFreeText({ type: "string", format: "email" }, "notes")).toBe(false);
    expect(isFreeText({ type: "string", pattern: "^[A-Z]+$" }, "text")).toBe(false);
    expect(isFreeText({ type: "integer" }, "notes")).toBe(false);
  });

  it("on the fixture: handoff's notes is free text; ids, crops, levels, actions and skus are short", () => {
    const prop = (tool: string, name: string) =>
      ((schemaOf(tool).properties as Schema)[name] ??
        ((schemaOf(tool).$defs as Schema).Slot as Schema)) as Schema;
    expect(isFreeText(prop("handoff", "notes"), "notes")).toBe(true);
    expect(isFreeText(prop("handoff", "patient_id"), "patient_id")).toBe(false);
    expect(isFreeText(prop("battery", "action"), "action")).toBe(false);
    const slot = (schemaOf("plan").$defs as Schema).Slot as Schema;
    expect(isFreeText((slot.properties as Schema).crop as Schema, "crop")).toBe(false);
    expect(isFreeText((slot.properties as Schema).level as Schema, "level")).toBe(false);
  });
});

describe("reflow", () => {
  it("joins a docstring's hard wraps (with their indentation) into one paragraph", () => {
    const doc = tools.find((t) => t.name === "plan")!.description;
    expect(reflow(doc)).toBe(
      "Submit the plan for every slot. Returns the new state, a reward and whether the episode finished.",
    );
    expect(
      reflow("Move the robot one cell in the\n        given direction and return what it\n        sees."),
    ).toBe("Move the robot one cell in the given direction and return what it sees.");
  });

  it("keeps blank lines between paragraphs", () => {
    expect(reflow("First paragraph,\n    wrapped.\n\n    Second\n    one.\n\n\n    Third.")).toBe(
      "First paragraph, wrapped.\n\nSecond one.\n\nThird.",
    );
  });

  it("keeps list items, definitions and lines after a colon on lines of their own", () => {
    const doc = `Dispatch the units.

        Args:
            units: power per unit, in MW; a unit left
                out keeps its output.
            dry_run (bool): only check the plan.

        Steps:
        - check the plan
        - apply it, which may take
          a while
        1. one
        2) two
        Then report.`;
    expect(reflow(doc)).toBe(
      [
        "Dispatch the units.",
        "",
        "Args:",
        "    units: power per unit, in MW; a unit left out keeps its output.",
        "    dry_run (bool): only check the plan.",
        "",
        "Steps:",
        "- check the plan",
        "- apply it, which may take a while",
        "1. one",
        "2) two",
        "Then report.",
      ].join("\n"),
    );
  });

  it("leaves one-line text and Markdown tables alone", () => {
    expect(reflow("Buy an item.")).toBe("Buy an item.");
    expect(reflow("| a | b |\n|---|---|\n| 1 | 2 |")).toBe("| a | b |\n|---|---|\n| 1 | 2 |");
  });
});
