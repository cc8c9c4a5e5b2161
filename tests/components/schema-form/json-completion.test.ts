// The JSON editor's schema completion and its parse diagnostics, on CodeMirror's real state and
// JSON parser (no DOM needed), with Pydantic 2.13's schemas.
import { CompletionContext, type CompletionResult } from "@codemirror/autocomplete";
import { json } from "@codemirror/lang-json";
import { ensureSyntaxTree } from "@codemirror/language";
import { EditorState, type TransactionSpec } from "@codemirror/state";
import { describe, expect, it } from "vitest";
import { jsonSchemaCompletion, schemasAt } from "@/components/schema-form/json-completion";
import { jsonDiagnostics } from "@/components/schema-form/json-editor";
import type { Schema } from "@/components/schema-form/schema-utils";
import fixture from "../../fixtures/pydantic-tool-schemas.json";

const schemaOf = (name: string) => fixture.tools.find((t) => t.name === name)!.input_schema as Schema;

/** Completion at the `|` in `doc`, as Ctrl+Space asks for it. */
function complete(tool: string, doc: string, explicit = true) {
  const pos = doc.indexOf("|");
  const text = doc.replace("|", "");
  const state = EditorState.create({ doc: text, extensions: [json()] });
  ensureSyntaxTree(state, state.doc.length, 5000);
  const source = jsonSchemaCompletion(schemaOf(tool));
  const result = source(new CompletionContext(state, pos, explicit)) as CompletionResult | null;
  /** The document once the option labelled `label` is applied, as the editor applies it. */
  const apply = (label: string): string => {
    const option = result!.options.find((o) => o.label === label)!;
    let next = state;
    const view = { state, dispatch: (spec: TransactionSpec) => (next = state.update(spec).state) };
    (option.apply as (...args: unknown[]) => void)(view, option, result!.from, result!.to ?? pos);
    return next.doc.toString();
  };
  return { labels: result ? result.options.map((o) => o.label) : [], result, apply };
}

describe("property names", () => {
  it("offers the properties not yet there, following $refs, required ones first", () => {
    expect(complete("plan", "{\n  |\n}").labels).toEqual([
      '"extra_action"',
      '"slot_1"',
      '"slot_2"',
      '"slot_3"',
      '"slot_4"',
    ]);
    expect(complete("plan", '{\n  "slot_1": {|}\n}').labels).toEqual(['"crop"', '"level"']);
    expect(complete("plan", '{\n  "slot_1": {"crop": "x", |}\n}').labels).toEqual(['"level"']);
    const { result } = complete("plan", '{ "slot_2": {}, |');
    expect(result!.options.find((o) => o.label === '"slot_1"')).toMatchObject({
      detail: "object · required",
      boost: 1,
    });
    expect(result!.options.find((o) => o.label === '"extra_action"')).toMatchObject({
      detail: "string",
      info: "none | buy_pump",
    });
  });

  it("completes over the whole token (a closing quote too), with a colon unless one follows", () => {
    const typed = complete("plan", '{ "sl|');
    expect(typed.result!.from).toBe(2);
    expect(typed.apply('"slot_1"')).toBe('{ "slot_1": ');
    expect(complete("plan", '{ "sl|ot_9": 1 }').apply('"slot_1"')).toBe('{ "slot_1": 1 }');
    // A quote typed with its closing twin (the editor closes brackets and quotes).
    const closed = complete("plan", '{ "|" }');
    expect(closed.labels).toContain('"extra_action"');
    expect(closed.apply('"extra_action"')).toBe('{ "extra_action":  }');
    // Typing without a quote: a bare word still completes.
    expect(complete("plan", "{ sl|", false).apply('"slot_2"')).toBe('{ "slot_2": ');
    expect(complete("draw", '{"colour": "g|"}').apply('"green"')).toBe('{"colour": "green"}');
    expect(complete("order", '{"vip": t|}', false).apply("true")).toBe('{"vip": true}');
  });

  it("narrows a discriminated union by the tag already there, and goes through arrays, tuples and recursion", () => {
    expect(complete("draw", '{"shape": {"kind": "rect", |}}').labels).toEqual(['"corner"', '"size"']);
    expect(complete("draw", '{"shape": {"kind": "circle", |}}').labels).toEqual(['"center"', '"radius"']);
    expect(complete("draw", '{"shape": {|}}').labels).toEqual([
      '"kind"',
      '"center"',
      '"radius"',
      '"corner"',
      '"size"',
    ]);
    expect(complete("order", '{"items": [{"sku": "a"}, {|}]}').labels).toEqual(['"sku"', '"qty"', '"gift"']);
    expect(complete("tree", '{"root": {"children": [{"children": [{|}]}]}}').labels).toEqual([
      '"name"',
      '"children"',
    ]);
  });
});

describe("values", () => {
  it("offers enum values (by $ref too), Literal numbers, booleans, null for nullable fields, constants", () => {
    expect(complete("draw", '{"colour": |}').labels).toEqual(['"red"', '"green"', '"blue"']);
    expect(complete("draw", '{"level": |}').labels).toEqual(["1", "2", "3"]);
    expect(complete("handoff", '{"disposition": "|').labels).toEqual([
      '"admit"',
      '"discharge"',
      '"transfer"',
      '"observe"',
      '"refer"',
    ]);
    expect(complete("order", '{"vip": |}').labels).toEqual(["true", "false"]);
    expect(complete("order", '{"items": [{"gift": t|}]}', false).labels).toEqual(["true", "false"]);
    expect(complete("draw", '{"anchor": |}').labels).toEqual(["null"]);
    expect(complete("draw", '{"shape": {"kind": |}}').labels).toEqual(['"circle"', '"rect"']);
  });

  it("offers nothing where the schema says nothing", () => {
    expect(complete("buy", '{"item_id": |}').labels).toEqual([]);
    expect(complete("buy", '{"nope": {|}}').labels).toEqual([]);
  });
});

describe("schemasAt", () => {
  it("follows properties, items, tuple positions and map values", () => {
    const draw = schemaOf("draw");
    expect(schemasAt(draw, ["shape", "size", 1])).toEqual([{ type: "number" }]);
    expect(schemasAt(schemaOf("dispatch"), ["units", "g7"])).toEqual([{ type: "number" }]);
    expect(schemasAt(schemaOf("order"), ["items", 4, "qty"])).toMatchObject([
      { type: "integer", minimum: 1 },
    ]);
  });
});

describe("jsonDiagnostics", () => {
  it("marks the first syntax error at its offset", () => {
    const text = '{\n  "a": 1,\n  "b": \n}';
    const [d] = jsonDiagnostics(text);
    expect(d).toMatchObject({ from: text.lastIndexOf("}"), severity: "error" });
    expect(d!.message).toMatch(/line 4, column 1/);
    expect(jsonDiagnostics('{"a": tru}')[0]).toMatchObject({ from: 6, to: 7 });
    const open = '{"a": 1';
    expect(jsonDiagnostics(open)[0]).toMatchObject({ from: open.length, to: open.length });
    expect(jsonDiagnostics("[1]")[0]).toMatchObject({
      from: 0,
      to: 3,
      message: expect.stringMatching(/object/),
    });
    expect(jsonDiagnostics('{"a": [1, 2]}')).toEqual([]);
  });
});
