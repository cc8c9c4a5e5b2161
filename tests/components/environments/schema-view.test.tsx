// @vitest-environment jsdom
// The Tools tab's schema view against the tool form, on Pydantic 2.13's schemas and on zod's (the
// built-in `schemas` environment): they agree on required, optional and defaults; unions read by
// their tag; descriptions are reflowed (dedented, hard wraps joined); internal names never show.
import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { SchemaView } from "@/components/environments/schema-view";
import { ToolCard } from "@/components/environments/tool-card";
import { takesNoInput } from "@/components/schema-form/schema-utils";
import { ToolForm } from "@/components/schema-form/tool-form";
import { schemas } from "@/envs/schemas";
import type { JsonObject, ToolSpec } from "@/lib/ors/protocol";
import fixture from "../../fixtures/pydantic-tool-schemas.json";

const tools = fixture.tools as ToolSpec[];
const schemaOf = (name: string) => tools.find((t) => t.name === name)!.input_schema as JsonObject;

afterEach(cleanup);

/** The view's top-level rows: name → its text (type, required/optional, default). */
function viewRows(container: HTMLElement): Map<string, string> {
  const rows = new Map<string, string>();
  const list = container.querySelector("ul")!;
  for (const li of list.querySelectorAll(":scope > li")) {
    const head = li.firstElementChild!;
    rows.set(head.querySelector("code")!.textContent!, head.textContent!);
  }
  return rows;
}

/** The form's top-level fields: name → whether it is starred as required, and what it shows as default. */
function formFields(form: HTMLElement): Map<string, { required: boolean; shown: string }> {
  const fields = new Map<string, { required: boolean; shown: string }>();
  const names = form.querySelectorAll("label, legend > span[id$='__name']");
  for (const el of names) {
    const text = el.textContent!.replace("*", "").trim();
    if (text.includes(" ")) continue; // nested: its accessible name carries its path
    const field = el.closest("fieldset, div")!;
    const control = el.tagName === "LABEL" ? document.getElementById((el as HTMLLabelElement).htmlFor) : null;
    let shown = "";
    if (control instanceof HTMLInputElement || control instanceof HTMLTextAreaElement)
      shown = control.placeholder;
    if (control instanceof HTMLSelectElement) shown = control.selectedOptions[0]?.textContent ?? "";
    if (control instanceof HTMLInputElement && control.type === "checkbox")
      shown = field.textContent!.includes("default") ? String(control.checked) : "";
    // An optional model's none/set choice: "none" checked is its default, null.
    const radio = el.closest("fieldset")?.querySelector<HTMLInputElement>("input[type=radio]:checked");
    if (el.tagName !== "LABEL" && radio)
      shown = radio.closest("label")!.textContent!.includes("none") ? "null" : "set";
    fields.set(text, { required: el.textContent!.includes("*"), shown });
  }
  return fields;
}

describe("the schema view and the form agree", () => {
  it("on required, optional and defaults, for every fixture tool", () => {
    for (const tool of tools) {
      if (takesNoInput(tool.input_schema)) continue;
      const schema = tool.input_schema as JsonObject;
      const view = render(<SchemaView schema={schema} />);
      const rows = viewRows(view.container);
      cleanup();
      const form = render(
        <ToolForm toolName={tool.name} schema={schema} value={{}} onChange={() => {}} onCall={() => {}} />,
      );
      const fields = formFields(form.container.querySelector("form")!);
      cleanup();
      const props = Object.keys(schema.properties as object);
      expect([...rows.keys()], tool.name).toEqual(props);
      for (const name of props) {
        const row = rows.get(name)!;
        const field = fields.get(name);
        expect(field, `${tool.name}.${name} in the form`).toBeDefined();
        expect(row.includes("required"), `${tool.name}.${name}: ${row}`).toBe(field!.required);
        expect(row.includes("optional"), `${tool.name}.${name}: ${row}`).toBe(!field!.required);
        const def = /default (.+?)(?:≥|≤|>|<|pattern|unique|min |max |$)/.exec(row)?.[1]?.trim();
        if (def !== undefined && def !== "[]") {
          const value = JSON.parse(def);
          const asText = typeof value === "string" ? value : JSON.stringify(value);
          expect(field!.shown, `${tool.name}.${name} shows its default ${def}`).toContain(asText);
        }
      }
    }
  });
});

describe("the schema view", () => {
  it("reads a discriminated union by its tag, a tuple as a tuple, a nullable model as T | null", () => {
    const { container } = render(<SchemaView schema={schemaOf("draw")} />);
    const rows = viewRows(container);
    expect(rows.get("shape")).toContain("kind = circle | kind = rect");
    expect(rows.get("anchor")).toContain("Point | null");
    expect(rows.get("label")).toContain("string | null");
    expect(rows.get("colour")).toContain("Colour");
    expect(container.textContent).toContain("when kind = rect");
    expect(container.textContent).toContain("[number, number]");
    const dispatch = render(<SchemaView schema={schemaOf("dispatch")} />);
    expect(viewRows(dispatch.container).get("units")).toContain("map<number>");
  });

  it("never shows zod's internal definition names, and follows its recursive $ref", () => {
    const tree = schemas.tools.get("tree")!.inputSchema as JsonObject;
    expect(JSON.stringify(tree)).toContain("__schema0");
    const { container } = render(<SchemaView schema={tree} />);
    expect(container.textContent).not.toContain("__schema");
    expect(viewRows(container).get("root")).toContain("object");
    expect(container.textContent).toContain("Category name");
  });

  it("says 'takes no input' for null and empty-object schemas", () => {
    for (const name of ["view_state", "observe", "null_input"]) {
      const tool = tools.find((t) => t.name === name)!;
      render(<ToolCard tool={tool} />);
      expect(
        within(screen.getByRole("region", { name })).getByText("This tool takes no input."),
      ).toBeTruthy();
      cleanup();
    }
  });

  it("shows descriptions reflowed (docstrings keep their indentation and hard wraps on the wire)", () => {
    render(<ToolCard tool={tools.find((t) => t.name === "plan")!} />);
    const region = screen.getByRole("region", { name: "plan" });
    expect(
      within(region).getByText(/^Submit the plan for every slot\./, { normalizer: (s) => s }).textContent,
    ).toBe(
      "Submit the plan for every slot. Returns the new state, a reward and whether the episode finished.",
    );
  });
});
