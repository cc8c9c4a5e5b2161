// @vitest-environment jsdom
// The generated form on every schema of tests/fixtures/pydantic-tool-schemas.json (Pydantic 2.13's
// exact output), driven as a user would (user-event, by role and label): labels by property name,
// unique accessible names, defaults optional, every construct building an input that the original
// schema accepts (AJV 2020 on the untouched schema), validation timing, keys, the checkbox.
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import Ajv2020 from "ajv/dist/2020";
import { computeAccessibleName } from "dom-accessibility-api";
import { useState } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { takesNoInput } from "@/components/schema-form/schema-utils";
import { ToolForm } from "@/components/schema-form/tool-form";
import type { JsonObject } from "@/lib/ors/protocol";
import fixture from "../../fixtures/pydantic-tool-schemas.json";

const tools = fixture.tools as { name: string; input_schema: JsonObject | null }[];
const schemaOf = (name: string) => tools.find((t) => t.name === name)!.input_schema as JsonObject;
const ajv = new Ajv2020({ strict: false, allErrors: true });

afterEach(cleanup);

/** Renders a tool's form holding its value in state, as the episode page does; records calls. */
function renderForm(name: string, initial: JsonObject = {}) {
  const calls: JsonObject[] = [];
  const state = { value: initial };
  function Harness() {
    const [value, setValue] = useState<JsonObject>(initial);
    state.value = value;
    return (
      <ToolForm
        toolName={name}
        schema={schemaOf(name)}
        value={value}
        onChange={setValue}
        onCall={(v) => calls.push(v)}
      />
    );
  }
  const user = userEvent.setup({ delay: null });
  const view = render(<Harness />);
  return {
    user,
    calls,
    state,
    view,
    call: () => user.click(screen.getByRole("button", { name: `Call ${name}` })),
  };
}

/** The input the form called the tool with, checked against the original Pydantic schema. */
function expectAccepted(name: string, value: JsonObject | undefined) {
  expect(value, "the tool was called").toBeDefined();
  const ok = ajv.validate(schemaOf(name), value);
  expect(ok, `${name} ${JSON.stringify(value)}: ${ajv.errorsText(ajv.errors)}`).toBe(true);
}

const isRequired = (el: HTMLElement) => (el as HTMLInputElement).required;
const isChecked = (el: HTMLElement) => (el as HTMLInputElement).checked;
const textbox = (name: string) => screen.getByRole("textbox", { name });
const spinbutton = (name: string) => screen.getByRole("spinbutton", { name });

describe("every fixture schema", () => {
  it("renders, with unique accessible names and no control to remove the tool's input itself", () => {
    for (const tool of tools) {
      if (takesNoInput(tool.input_schema)) continue;
      const { view } = renderForm(tool.name);
      const form = view.container.querySelector("form")!;
      const controls = [...form.querySelectorAll<HTMLElement>("input, select, textarea, button")];
      const names = controls.map((c) => computeAccessibleName(c));
      expect(names.every(Boolean), `${tool.name}: ${JSON.stringify(names)}`).toBe(true);
      expect(new Set(names).size, `${tool.name}: ${JSON.stringify(names)}`).toBe(names.length);
      // Removing something names what (`Remove items #1`); nothing removes the input as a whole.
      const removers = within(form).queryAllByRole("button", { name: /^(remove|unset|delete)\b/i });
      for (const b of removers) expect(computeAccessibleName(b), tool.name).toMatch(/^(Remove|Unset) \S/);
      cleanup();
    }
    // rjsf offers "remove" on an optional object it does not recognise as the root (a root `$ref`).
    const root = {
      $ref: "#/$defs/Opts",
      $defs: { Opts: { type: "object", title: "Opts", properties: { a: { type: "string" } } } },
    };
    for (const schema of [root, { type: "object", properties: { a: { type: "string" } } }]) {
      render(<ToolForm toolName="t" schema={schema} value={{}} onChange={() => {}} onCall={() => {}} />);
      expect(screen.queryByRole("button", { name: /remove|unset|delete/i })).toBeNull();
      expect(screen.getByRole("textbox", { name: "a" })).toBeTruthy();
      cleanup();
    }
  });

  it("labels a $ref model's fields by property name, with the path in the accessible name", () => {
    renderForm("plan");
    for (const slot of ["slot_1", "slot_2", "slot_3", "slot_4"]) {
      const group = screen.getByRole("group", { name: slot });
      expect(group.querySelector("legend")!.textContent).toContain("Slot"); // the model's title, a hint
      expect(textbox(`${slot} crop`)).toBeTruthy();
      expect(textbox(`${slot} level`)).toBeTruthy();
    }
    // The visible label is the property name, not Pydantic's title ("Crop").
    expect(screen.getAllByText("crop", { selector: "label span" })).toHaveLength(4);
    expect(screen.queryByText("Crop")).toBeNull();
  });
});

describe("defaults", () => {
  it("a field with a default is optional: not starred, not required, its default as placeholder, never refused blank", async () => {
    const { calls, call } = renderForm("plan");
    const extra = textbox("extra_action");
    expect(isRequired(extra)).toBe(false);
    expect(extra.getAttribute("placeholder")).toBe("none");
    expect(extra.closest("div")!.parentElement!.textContent).not.toContain("*");
    expect(isRequired(textbox("slot_1 crop"))).toBe(true);
    const user = userEvent.setup({ delay: null });
    for (const slot of ["slot_1", "slot_2", "slot_3", "slot_4"]) {
      await user.type(textbox(`${slot} crop`), "wheat");
      await user.type(textbox(`${slot} level`), "low");
    }
    await call();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.extra_action).toBeUndefined();
    expectAccepted("plan", calls[0]);
  });

  it("numbers, enums and booleans with defaults read as their default until set", () => {
    renderForm("history");
    expect(spinbutton("lookback").getAttribute("placeholder")).toBe("4");
    expect(isRequired(spinbutton("lookback"))).toBe(false);
    cleanup();
    renderForm("draw");
    const colour = screen.getByRole("combobox", { name: "colour" }) as HTMLSelectElement;
    expect(colour.selectedOptions[0]!.textContent).toBe("red (default)");
    const level = screen.getByRole("combobox", { name: "level" }) as HTMLSelectElement;
    expect(level.selectedOptions[0]!.textContent).toBe("1 (default)");
    cleanup();
    renderForm("order");
    expect(isChecked(screen.getByRole("checkbox", { name: "vip" }))).toBe(false);
    expect(isRequired(screen.getByRole("checkbox", { name: "vip" }))).toBe(false);
  });
});

describe("constructs build inputs the schema accepts", () => {
  it("a discriminated union (choosing the variant sets the tag), a tuple, an enum by $ref, a Literal of numbers, Optional[Model]", async () => {
    const { user, calls, state, call } = renderForm("draw");
    expect(state.value).toMatchObject({ shape: { kind: "circle" } });
    await user.selectOptions(screen.getByRole("combobox", { name: "shape" }), "kind = rect");
    expect(state.value).toMatchObject({ shape: { kind: "rect" } });
    expect(screen.queryByRole("textbox", { name: /shape kind/ })).toBeNull(); // the selector is the tag
    await user.type(spinbutton("shape corner x"), "1");
    await user.type(spinbutton("shape corner y"), "2.5");
    await user.type(spinbutton("shape size #1"), "3");
    await user.type(spinbutton("shape size #2"), "4");
    await user.selectOptions(screen.getByRole("combobox", { name: "colour" }), "blue");
    await user.selectOptions(screen.getByRole("combobox", { name: "level" }), "3");
    expect(isChecked(screen.getByRole("radio", { name: "anchor none" }))).toBe(true);
    expect(screen.queryByRole("spinbutton", { name: "anchor x" })).toBeNull();
    await user.click(screen.getByRole("radio", { name: "anchor set (Point)" }));
    await user.type(spinbutton("anchor x"), "5");
    await user.type(spinbutton("anchor y"), "6");
    await call();
    expect(calls[0]).toEqual({
      shape: { kind: "rect", corner: { x: 1, y: 2.5 }, size: [3, 4] },
      colour: "blue",
      level: 3,
      anchor: { x: 5, y: 6 },
    });
    expectAccepted("draw", calls[0]);
    // Back to none: the anchor is not sent.
    await user.click(screen.getByRole("radio", { name: "anchor none" }));
    await call();
    expect(calls[1]!.anchor ?? null).toBeNull();
    expectAccepted("draw", calls[1]);
  });

  it("an optional model set but empty: its fields' errors, not the null option's", async () => {
    const { user, calls, call } = renderForm("draw");
    await user.click(screen.getByRole("radio", { name: "anchor set (Point)" }));
    await call();
    expect(calls).toHaveLength(0);
    expect(spinbutton("anchor x").getAttribute("aria-invalid")).toBe("true");
    expect(screen.queryByText("must be null")).toBeNull();
    expect(screen.queryByText(/must match/)).toBeNull();
  });

  it("an empty tuple position or new list item reads 'is required'", async () => {
    const { user, calls, call } = renderForm("draw");
    await user.selectOptions(screen.getByRole("combobox", { name: "shape" }), "kind = rect");
    await user.type(spinbutton("shape size #1"), "3");
    await call();
    expect(calls).toHaveLength(0);
    const size2 = spinbutton("shape size #2");
    expect(document.getElementById(size2.getAttribute("aria-describedby")!.split(" ")[0]!)!.textContent).toBe(
      "is required",
    );
    expect(screen.queryByText("must be number")).toBeNull();
  });

  it("a circle: the other variant's fields", async () => {
    const { user, calls, call } = renderForm("draw");
    await user.type(spinbutton("shape center x"), "0");
    await user.type(spinbutton("shape center y"), "0");
    await user.type(spinbutton("shape radius"), "2");
    await user.type(textbox("label"), "a label");
    await call();
    expect(calls[0]).toEqual({
      shape: { kind: "circle", center: { x: 0, y: 0 }, radius: 2 },
      label: "a label",
    });
    expectAccepted("draw", calls[0]);
  });

  it("an array of models, a set (duplicates refused), an optional pattern string", async () => {
    const { user, calls, call } = renderForm("order");
    await user.type(textbox("items #1 sku"), "A-1");
    await user.type(spinbutton("items #1 qty"), "2");
    await user.click(screen.getByRole("checkbox", { name: "items #1 gift" }));
    await user.click(screen.getByRole("button", { name: "Add item to items" }));
    await user.type(textbox("items #2 sku"), "B-2");
    await user.type(spinbutton("items #2 qty"), "1");
    await user.click(screen.getByRole("button", { name: "Add item to tags" }));
    await user.type(textbox("tags #1"), "x");
    await user.click(screen.getByRole("button", { name: "Add item to tags" }));
    await user.type(textbox("tags #2"), "x");
    await user.type(textbox("coupon"), "SAVE10");
    await call();
    expect(calls).toHaveLength(0);
    expect(screen.getByText("must not contain the same value twice")).toBeTruthy();
    await user.clear(textbox("tags #2"));
    await user.type(textbox("tags #2"), "y");
    await call();
    expect(calls[0]).toEqual({
      items: [
        { sku: "A-1", qty: 2, gift: true },
        { sku: "B-2", qty: 1 },
      ],
      tags: ["x", "y"],
      coupon: "SAVE10",
    });
    expectAccepted("order", calls[0]);
    // A coupon that does not match the pattern is refused; blank, it is not sent.
    await user.clear(textbox("coupon"));
    await user.type(textbox("coupon"), "bad");
    await call();
    expect(calls).toHaveLength(1);
    expect(screen.getByText("must match ^[A-Z0-9]{4,10}$")).toBeTruthy();
    await user.clear(textbox("coupon"));
    await call();
    expect(calls).toHaveLength(2);
    expect("coupon" in calls[1]!).toBe(false);
  });

  it("a map: add, fill and remove key/value rows", async () => {
    const { user, calls, call } = renderForm("dispatch");
    await user.click(screen.getByRole("button", { name: "Add entry to units" }));
    await user.clear(textbox("units #1 key"));
    await user.type(textbox("units #1 key"), "g1");
    await user.clear(spinbutton("units #1 value"));
    await user.type(spinbutton("units #1 value"), "12.5");
    await user.click(screen.getByRole("button", { name: "Add entry to units" }));
    await user.clear(textbox("units #2 key"));
    await user.type(textbox("units #2 key"), "g2");
    await user.type(spinbutton("units #2 value"), "3");
    await user.click(screen.getByRole("button", { name: "Add entry to units" }));
    await user.click(screen.getByRole("button", { name: "Remove units #3" }));
    await call();
    expect(calls[0]).toEqual({ units: { g1: 12.5, g2: 3 } });
    expectAccepted("dispatch", calls[0]);
  });

  it("a recursive model (TreeNode.children)", async () => {
    const { user, calls, call } = renderForm("tree");
    await user.type(textbox("root name"), "top");
    await user.click(screen.getByRole("button", { name: "Add item to root children" }));
    await user.type(textbox("root children #1 name"), "kid");
    await user.click(screen.getByRole("button", { name: "Add item to root children #1 children" }));
    await user.type(textbox("root children #1 children #1 name"), "grandkid");
    await call();
    expect(calls[0]).toEqual({
      root: { name: "top", children: [{ name: "kid", children: [{ name: "grandkid" }] }] },
    });
    expectAccepted("tree", calls[0]);
  });

  it("arrays of integers, enums, bounded numbers", async () => {
    let r = renderForm("read");
    await r.user.click(screen.getByRole("button", { name: "Add item to ids" }));
    await r.user.type(spinbutton("ids #1"), "3");
    await r.call();
    expect(r.calls[0]).toEqual({ ids: [3] });
    expectAccepted("read", r.calls[0]);
    cleanup();
    r = renderForm("handoff");
    await r.user.type(textbox("patient_id"), "p-7");
    await r.user.selectOptions(screen.getByRole("combobox", { name: "disposition" }), "refer");
    await r.user.type(textbox("notes"), "line one{Enter}line two");
    await r.call();
    expect(r.calls[0]).toEqual({ patient_id: "p-7", disposition: "refer", notes: "line one\nline two" });
    expectAccepted("handoff", r.calls[0]);
    cleanup();
    r = renderForm("set_price");
    await r.user.type(textbox("item_id"), "x");
    await r.user.type(spinbutton("price"), "0");
    await r.call();
    expect(r.calls).toHaveLength(0);
    expect(screen.getByText("must be > 0")).toBeTruthy();
    await r.user.clear(spinbutton("price"));
    await r.user.type(spinbutton("price"), "9.99");
    await r.call();
    expect(r.calls[0]).toEqual({ item_id: "x", price: 9.99 });
    expectAccepted("set_price", r.calls[0]);
  });
});

describe("validation timing", () => {
  const errorsOf = (el: HTMLElement) =>
    (el.getAttribute("aria-describedby") ?? "")
      .split(" ")
      .map((id) => document.getElementById(id))
      .filter((e): e is HTMLElement => !!e && /__error$/.test(e.id))
      .map((e) => e.textContent);

  it("shows nothing before the user reaches a field; a field's error after leaving it having typed; clears at once", async () => {
    const { user } = renderForm("buy");
    const item = textbox("item_id");
    const qty = spinbutton("quantity");
    expect(screen.queryByText("is required")).toBeNull();
    // Focus and leave without typing: nothing.
    await user.click(item);
    await user.tab();
    expect(errorsOf(item)).toEqual([]);
    // Type, leave: the error of that field only.
    await user.type(qty, "500");
    expect(errorsOf(qty)).toEqual([]); // not while typing
    await user.tab();
    expect(errorsOf(qty)).toEqual(["must be <= 100"]);
    expect(qty.getAttribute("aria-invalid")).toBe("true");
    expect(errorsOf(item)).toEqual([]);
    // Valid again: cleared as soon as it is.
    await user.clear(qty);
    await user.type(qty, "5");
    expect(errorsOf(qty)).toEqual([]);
    // Typed then emptied, then left: "is required".
    await user.type(item, "a");
    await user.clear(item);
    await user.tab();
    expect(errorsOf(item)).toEqual(["is required"]);
  });

  it("shows every error after an attempt to call, and focuses the first", async () => {
    const { calls, call } = renderForm("buy");
    await call();
    expect(calls).toHaveLength(0);
    expect(errorsOf(textbox("item_id"))).toEqual(["is required"]);
    expect(errorsOf(spinbutton("quantity"))).toEqual(["is required"]);
    expect(document.activeElement).toBe(textbox("item_id"));
  });

  it("an error found while the pointer is down waits for the release, so the click lands", async () => {
    const { calls, state } = renderForm("buy");
    const qty = spinbutton("quantity");
    const user = userEvent.setup({ delay: null });
    await user.type(textbox("item_id"), "x");
    await user.type(qty, "500");
    const button = screen.getByRole("button", { name: "Call buy" });
    // Press on the button: the field blurs, but its error is not shown until the press ends.
    await user.pointer({ keys: "[MouseLeft>]", target: button });
    expect(qty.getAttribute("aria-invalid")).toBeNull();
    await user.pointer({ keys: "[/MouseLeft]", target: button });
    expect(calls).toHaveLength(0); // the click was a call attempt: refused, with the error shown
    expect(qty.getAttribute("aria-invalid")).toBe("true");
    expect(state.value).toEqual({ item_id: "x", quantity: 500 });
  });
});

describe("keys", () => {
  it("Enter in a field never calls; Ctrl+Enter calls from any field", async () => {
    const { user, calls } = renderForm("buy");
    await user.type(textbox("item_id"), "abc{Enter}");
    await user.type(spinbutton("quantity"), "2{Enter}");
    expect(calls).toHaveLength(0);
    await user.click(spinbutton("quantity"));
    await user.keyboard("{Control>}{Enter}{/Control}");
    expect(calls).toEqual([{ item_id: "abc", quantity: 2 }]);
  });

  it("Enter in a one-line field leaves the value as it is and confirms the field (its errors show)", async () => {
    const { user, calls, state } = renderForm("buy");
    const item = textbox("item_id");
    expect(item.tagName).toBe("INPUT");
    await user.type(item, "case-17{Enter}");
    expect((item as HTMLInputElement).value).toBe("case-17");
    expect(state.value).toEqual({ item_id: "case-17" });
    const qty = spinbutton("quantity");
    await user.type(qty, "500{Enter}");
    expect(document.activeElement).toBe(qty); // still there: Enter did not move on or submit
    expect(qty.getAttribute("aria-invalid")).toBe("true");
    expect(screen.getByText("must be <= 100")).toBeTruthy();
    expect(calls).toHaveLength(0);
  });

  it("short strings are one-line inputs; free text (notes, text, message, content, body; long maxLength) text areas", () => {
    renderForm("order");
    expect(textbox("items #1 sku").tagName).toBe("INPUT");
    expect(textbox("coupon").tagName).toBe("INPUT");
    cleanup();
    renderForm("handoff");
    expect(textbox("patient_id").tagName).toBe("INPUT");
    expect(textbox("notes").tagName).toBe("TEXTAREA");
    cleanup();
    renderForm("plan");
    expect(textbox("slot_1 crop").tagName).toBe("INPUT");
    expect(textbox("slot_1 level").tagName).toBe("INPUT");
    cleanup();
    const schema = {
      type: "object",
      properties: {
        code: { type: "string", maxLength: 12 },
        report: { type: "string", maxLength: 4000 },
        message: { type: "string" },
        body: { type: "string", description: "anything" },
        answer: { type: "string", description: "The text of your answer" },
        email: { type: "string", format: "email" },
      },
    };
    render(<ToolForm toolName="t" schema={schema} value={{}} onChange={() => {}} onCall={() => {}} />);
    expect(textbox("code").tagName).toBe("INPUT");
    expect(textbox("report").tagName).toBe("TEXTAREA");
    expect(textbox("message").tagName).toBe("TEXTAREA");
    expect(textbox("body").tagName).toBe("TEXTAREA");
    expect(textbox("answer").tagName).toBe("TEXTAREA");
    expect(textbox("email").tagName).toBe("INPUT");
    // A format keeps its own input: no switch.
    expect(screen.queryByRole("button", { name: "email multi-line" })).toBeNull();
  });

  it("a field switches between one line and a text area, keeping its value", async () => {
    const { user, state, calls, call } = renderForm("handoff");
    const toggle = screen.getByRole("button", { name: "patient_id multi-line" });
    expect(toggle.getAttribute("aria-pressed")).toBe("false");
    await user.type(textbox("patient_id"), "p-7");
    await user.click(toggle);
    expect(toggle.getAttribute("aria-pressed")).toBe("true");
    expect(textbox("patient_id").tagName).toBe("TEXTAREA");
    expect((textbox("patient_id") as HTMLTextAreaElement).value).toBe("p-7");
    // In a text area Enter types a line break.
    await user.type(textbox("patient_id"), "{Enter}x");
    expect(state.value.patient_id).toBe("p-7\nx");
    // With a line break in it, it cannot go back to one line (the input would hide the break).
    expect((toggle as HTMLButtonElement).disabled).toBe(true);
    await user.clear(textbox("patient_id"));
    await user.type(textbox("patient_id"), "p-8");
    await user.click(toggle);
    expect(textbox("patient_id").tagName).toBe("INPUT");
    // The other way: notes to one line.
    await user.click(screen.getByRole("button", { name: "notes multi-line" }));
    expect(textbox("notes").tagName).toBe("INPUT");
    await user.type(textbox("notes"), "short{Enter}");
    await user.selectOptions(screen.getByRole("combobox", { name: "disposition" }), "admit");
    await call();
    expect(calls).toEqual([{ patient_id: "p-8", disposition: "admit", notes: "short" }]);
  });

  it("flags a value that starts or ends with whitespace, sends it as typed, and trims on request", async () => {
    const { user, calls, call, state } = renderForm("buy");
    const item = textbox("item_id");
    await user.type(item, " case-17  ");
    await user.type(spinbutton("quantity"), "1");
    const flag = document.getElementById(item.getAttribute("aria-describedby")!.split(" ").at(-1)!)!;
    expect(flag.textContent).toContain("starts with a space and ends with 2 spaces");
    await call();
    expect(calls[0]).toEqual({ item_id: " case-17  ", quantity: 1 });
    await user.click(screen.getByRole("button", { name: "Trim item_id" }));
    expect(state.value.item_id).toBe("case-17");
    expect(screen.queryByText(/Whitespace:/)).toBeNull();
    expect(textbox("item_id").getAttribute("aria-describedby") ?? "").not.toContain("whitespace");
  });

  it("a value with a line break (remembered from before) is shown whole in a text area and flagged", () => {
    renderForm("buy", { item_id: "case-17\n", quantity: 1 });
    const item = textbox("item_id") as HTMLTextAreaElement;
    expect(item.tagName).toBe("TEXTAREA");
    expect(item.value).toBe("case-17\n");
    expect(screen.getByText(/ends with a line break/)).toBeTruthy();
    expect(screen.getByRole("button", { name: "Trim item_id" })).toBeTruthy();
  });
});

describe("maps", () => {
  const entryKey = (n: number) => textbox(`units #${n} key`) as HTMLInputElement;
  const entryValue = (n: number) => spinbutton(`units #${n} value`) as HTMLInputElement;

  it("a new entry starts with an empty key that must be filled; the call is refused until it is", async () => {
    const { user, calls, call } = renderForm("dispatch");
    await user.click(screen.getByRole("button", { name: "Add entry to units" }));
    expect(entryKey(1).value).toBe("");
    expect(screen.queryByDisplayValue("newKey")).toBeNull();
    await user.type(entryValue(1), "5");
    await call();
    expect(calls).toHaveLength(0);
    expect(entryKey(1).getAttribute("aria-invalid")).toBe("true");
    expect(document.activeElement).toBe(entryKey(1));
    expect(screen.getByText("needs a key")).toBeTruthy();
    await user.type(entryKey(1), "g1");
    await call();
    expect(calls).toEqual([{ units: { g1: 5 } }]);
    expectAccepted("dispatch", calls[0]);
  });

  it("a repeated key is an error on that entry, never renamed and never sent", async () => {
    const { user, calls, call, state } = renderForm("dispatch");
    await user.click(screen.getByRole("button", { name: "Add entry to units" }));
    await user.type(entryKey(1), "g1");
    await user.type(entryValue(1), "1");
    await user.click(screen.getByRole("button", { name: "Add entry to units" }));
    await user.type(entryKey(2), "g1");
    await user.type(entryValue(2), "2");
    // Shown at once, on the second entry; the key stays as typed.
    expect(entryKey(2).value).toBe("g1");
    expect(entryKey(2).getAttribute("aria-invalid")).toBe("true");
    expect(screen.getByText('"g1" is already the key of entry #1')).toBeTruthy();
    expect(entryKey(1).getAttribute("aria-invalid")).toBeNull();
    expect(state.value).toEqual({ units: { g1: 1 } });
    expect(JSON.stringify(state.value)).not.toMatch(/g1-1|newKey/);
    await call();
    expect(calls).toHaveLength(0);
    await user.clear(entryKey(2));
    await user.type(entryKey(2), "g2");
    expect(screen.queryByText(/already the key/)).toBeNull();
    await call();
    expect(calls).toEqual([{ units: { g1: 1, g2: 2 } }]);
  });

  it("an entry without a value is refused, not silently dropped", async () => {
    const { user, calls, call } = renderForm("dispatch");
    await user.click(screen.getByRole("button", { name: "Add entry to units" }));
    await user.type(entryKey(1), "g1");
    await call();
    expect(calls).toHaveLength(0);
    expect(entryValue(1).getAttribute("aria-invalid")).toBe("true");
    expect(screen.getByText("needs a value")).toBeTruthy();
  });

  it("a key that names one of the object's own fields is an error too", async () => {
    const schema = {
      type: "object",
      properties: { mode: { type: "string" } },
      additionalProperties: { type: "integer" },
    };
    const calls: JsonObject[] = [];
    function Harness() {
      const [value, setValue] = useState<JsonObject>({});
      return (
        <ToolForm
          toolName="t"
          schema={schema}
          value={value}
          onChange={setValue}
          onCall={(v) => calls.push(v)}
        />
      );
    }
    const user = userEvent.setup({ delay: null });
    render(<Harness />);
    await user.type(textbox("mode"), "fast");
    await user.click(screen.getByRole("button", { name: "Add entry" }));
    await user.type(textbox("#1 key"), "mode");
    await user.type(spinbutton("#1 value"), "3");
    expect(screen.getByText('"mode" is the name of a field of its own')).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Call t" }));
    expect(calls).toHaveLength(0);
    await user.clear(textbox("#1 key"));
    await user.type(textbox("#1 key"), "extra");
    await user.click(screen.getByRole("button", { name: "Call t" }));
    expect(calls).toEqual([{ mode: "fast", extra: 3 }]);
  });

  it("an entry with no key yet survives a visit to the JSON tab, which says it is not in the value", async () => {
    const { user } = renderForm("dispatch");
    await user.click(screen.getByRole("button", { name: "Add entry to units" }));
    await user.type(entryKey(1), "g1");
    await user.type(entryValue(1), "1");
    await user.click(screen.getByRole("button", { name: "Add entry to units" }));
    await user.type(entryValue(2), "7");
    await user.click(screen.getByRole("tab", { name: "JSON" }));
    expect(await screen.findByText(/Not in this value/)).toBeTruthy();
    expect(screen.getByText(/units #2: needs a key/)).toBeTruthy();
    await user.click(screen.getByRole("tab", { name: "Form" }));
    expect(entryKey(2).value).toBe("");
    expect(entryValue(2).value).toBe("7");
    expect(entryKey(1).value).toBe("g1");
  });
});

describe("the JSON tab", () => {
  const status = () => document.querySelector('[id$="-json-status"]')!.textContent ?? "";

  it("names the keys the form has no field for (kept and sent), not 'the same value'", async () => {
    const { user } = renderForm("buy", { item_id: "a", quantity: 1, colour: "red" });
    expect(screen.getByRole("note").textContent).toContain("colour");
    await user.click(screen.getByRole("tab", { name: "JSON" }));
    expect(status()).toContain("The form has no field for colour: it is kept and sent as typed.");
    expect(status()).not.toContain("the form shows the same value");
  });

  it("finds them inside models, lists and unions", () => {
    const { view } = renderForm("draw", {
      shape: { kind: "rect", corner: { x: 1, y: 2, z: 3 }, size: [1, 2], rounded: true },
      extra: 1,
    });
    expect(view.container.textContent).toContain("shape.corner.z, shape.rounded, extra");
    cleanup();
    renderForm("order", { items: [{ sku: "a", qty: 1, note: "x" }] });
    expect(screen.getByRole("note").textContent).toContain("items[0].note");
  });

  it("says at once which keys additionalProperties: false refuses, and refuses the call", async () => {
    const { user, calls } = renderForm("dispatch", { units: { g1: 1 }, mode: "x" });
    await user.click(screen.getByRole("tab", { name: "JSON" }));
    expect(status()).toMatch(
      /Not allowed \(its object sets additionalProperties: false; the call would be refused\): mode\./,
    );
    await user.click(screen.getByRole("button", { name: "Call dispatch" }));
    expect(calls).toHaveLength(0);
  });

  it("says the form shows the same value when it does", async () => {
    const { user } = renderForm("buy", { item_id: "a", quantity: 1 });
    await user.click(screen.getByRole("tab", { name: "JSON" }));
    expect(status()).toBe("Valid JSON object; the form shows the same value.");
  });
});

describe("descriptions", () => {
  it("join a docstring's hard wraps; blank lines still separate paragraphs", () => {
    const schema = {
      type: "object",
      properties: {
        route: {
          type: "string",
          description:
            "The route to drive, as a list of\n        intersections separated by commas.\n\n        Unknown names are refused.",
        },
      },
    };
    render(<ToolForm toolName="t" schema={schema} value={{}} onChange={() => {}} onCall={() => {}} />);
    const ids = textbox("route").getAttribute("aria-describedby")!.split(" ");
    const description = ids
      .map((id) => document.getElementById(id))
      .find((e) => e?.id.endsWith("__description"));
    expect(description!.textContent).toBe(
      "The route to drive, as a list of intersections separated by commas.\n\nUnknown names are refused.",
    );
  });
});

describe("checkbox", () => {
  it("a click is never lost, after a switch to JSON and back and edits of its siblings", async () => {
    const { user, state } = renderForm("order");
    await user.click(screen.getByRole("tab", { name: "JSON" }));
    await user.click(screen.getByRole("tab", { name: "Form" }));
    await user.type(textbox("items #1 sku"), "A");
    const vip = screen.getByRole("checkbox", { name: "vip" });
    await user.click(vip);
    expect(isChecked(vip)).toBe(true);
    expect(state.value.vip).toBe(true);
    await user.type(spinbutton("items #1 qty"), "1");
    await user.click(screen.getByRole("checkbox", { name: "items #1 gift" }));
    await user.click(vip);
    expect(isChecked(vip)).toBe(false);
    expect(state.value).toMatchObject({ vip: false, items: [{ sku: "A", qty: 1, gift: true }] });
    await act(async () => {
      fireEvent.click(vip);
    });
    expect(state.value.vip).toBe(true);
  });
});
