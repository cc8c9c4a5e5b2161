// Forms e2e: tool forms generated from
// Pydantic 2's schemas, on the reference-shaped test server (tests/fixtures/reference-server, the
// app's `py` server), which validates every input as Pydantic would and answers with what it did.
// Each tricky tool is filled by role and label and called, and the step's output shows that the
// server accepted the input; then validation timing, the checkbox, keys, the JSON editor, and one
// whole episode played through forms only. No test ids for form fields, no fixed sleeps.
import { expect, type Locator, type Page, test } from "@playwright/test";
import { EpisodePage } from "./pages/episode";
import { expectContains, fillByLabel } from "./steps";

/** Starts train/0 of `env` on the reference-shaped server (`py`); resolves once its prompt is there. */
async function startEpisode(page: Page, env: string): Promise<EpisodePage> {
  const episode = await EpisodePage.start(page, { server: "py", env, split: "train", index: 0 });
  await expect(episode.prompt).not.toBeEmpty();
  return episode;
}

/** Starts an episode of `env` on `py` and picks `tool`: the episode and the tool's form. */
async function openTool(
  page: Page,
  env: string,
  tool: string,
): Promise<{ episode: EpisodePage; form: Locator }> {
  const episode = await startEpisode(page, env);
  return { episode, form: await episode.pickTool(tool) };
}

const combo = (scope: Locator, name: string) => scope.getByRole("combobox", { name, exact: true });

test.describe("forms for Pydantic schemas", () => {
  test("plan: a $ref model's fields named slot_1 crop…; a default left blank is not sent", async ({
    page,
  }) => {
    const { episode, form } = await openTool(page, "farmplanner", "plan");
    // Labelled by property name; the model's title only a hint; one element per path name.
    await expect(form.getByRole("group", { name: "slot_1", exact: true })).toContainText("Slot");
    await expect(form.getByLabel("slot_1 crop")).toHaveCount(1);
    await expect(form.getByText("Crop", { exact: true })).toHaveCount(0);
    const extra = form.getByLabel("extra_action");
    await expect(extra).toHaveAttribute("placeholder", "none");
    await expect(extra).not.toHaveAttribute("required", /.*/);
    for (const slot of ["slot_1", "slot_2", "slot_3", "slot_4"]) {
      await form.getByLabel(`${slot} crop`).fill("wheat");
      await form.getByLabel(`${slot} level`).fill("medium");
    }
    const input = await episode.sentInput("plan", () =>
      form.getByRole("button", { name: "Call plan" }).click(),
    );
    expect(input.slot_4).toEqual({ crop: "wheat", level: "medium" });
    expect(input).not.toHaveProperty("extra_action");
    await expectContains(await episode.accepted(1, "plan"), ["step: 1 of 3", "slot_4: wheat (medium)"]);
  });

  test("draw: a discriminated union sets its tag, a tuple, an enum by $ref, Literal numbers, Optional[Model]", async ({
    page,
  }) => {
    const { episode, form } = await openTool(page, "canvas", "draw");
    await combo(form, "shape").selectOption({ label: "kind = rect" });
    await fillByLabel(form, {
      "shape corner x": "1",
      "shape corner y": "2",
      "shape size #1": "3",
      "shape size #2": "4",
    });
    await combo(form, "colour").selectOption("blue");
    await combo(form, "level").selectOption("3");
    await form.getByRole("radio", { name: "anchor set" }).check();
    await fillByLabel(form, { "anchor x": "5", "anchor y": "6" });
    await form.getByRole("button", { name: "Call draw" }).click();
    await expectContains(await episode.accepted(1, "draw"), [
      "shape: rect",
      "size: 3 × 4",
      "colour: blue",
      "level: 3",
      "anchor: (5, 6)",
    ]);

    // The other option: its own fields; the anchor back to none is not sent.
    await combo(form, "shape").selectOption({ label: "kind = circle" });
    await fillByLabel(form, { "shape center x": "0", "shape center y": "0", "shape radius": "10" });
    await form.getByRole("radio", { name: "anchor none" }).check();
    await form.getByLabel("label").fill("a circle");
    await form.getByRole("button", { name: "Call draw" }).click();
    await expectContains(await episode.accepted(2, "draw"), [
      "shape: circle",
      "label: a circle",
      "anchor: None",
    ]);
    await expect(episode.step(2, "draw")).toContainText("+3.14");
  });

  test("order: an array of models, a set, an optional pattern string", async ({ page }) => {
    const { episode, form } = await openTool(page, "canvas", "order");
    await fillByLabel(form, { "items #1 sku": "A-1", "items #1 qty": "2" });
    await form.getByLabel("items #1 gift").check();
    await form.getByRole("button", { name: "Add item to items" }).click();
    await fillByLabel(form, { "items #2 sku": "B-2", "items #2 qty": "1" });
    await form.getByRole("button", { name: "Add item to tags" }).click();
    await form.getByLabel("tags #1").fill("fragile");
    await form.getByRole("button", { name: "Add item to tags" }).click();
    await fillByLabel(form, { "tags #2": "fragile", coupon: "bad" });
    await form.getByRole("button", { name: "Call order" }).click();
    // Refused before it is sent: a set holds each value once; the coupon has a pattern.
    await expect(form.getByText("must not contain the same value twice")).toBeVisible();
    await expect(form.getByText("must match ^[A-Z0-9]{4,10}$")).toBeVisible();
    await expect(page.getByText("No steps yet.")).toBeVisible();
    await fillByLabel(form, { "tags #2": "express", coupon: "SAVE10" });
    await expect(form.getByText("must match ^[A-Z0-9]{4,10}$")).toHaveCount(0);
    await form.getByRole("button", { name: "Call order" }).click();
    const out = await episode.accepted(1, "order");
    await expect(out.getByRole("table")).toContainText("A-1");
    await expect(out.getByRole("table")).toContainText("B-2");
    await expect(out).toContainText("Coupon: SAVE10");
    await expect(out).toContainText("Tags: fragile, express");
  });

  test("dispatch: a map as key/value rows", async ({ page }) => {
    const { episode, form } = await openTool(page, "canvas", "dispatch");
    await form.getByRole("button", { name: "Add entry to units" }).click();
    await fillByLabel(form, { "units #1 key": "g1", "units #1 value": "100" });
    await form.getByRole("button", { name: "Add entry to units" }).click();
    await fillByLabel(form, { "units #2 key": "g2", "units #2 value": "20" });
    await form.getByRole("button", { name: "Add entry to units" }).click();
    await form.getByRole("button", { name: "Remove units #3" }).click();
    await expect(form.getByLabel("units #3 key")).toHaveCount(0);
    const input = await episode.sentInput("dispatch", () =>
      form.getByRole("button", { name: "Call dispatch" }).click(),
    );
    expect(input).toEqual({ units: { g1: 100, g2: 20 } });
    await expectContains(await episode.accepted(1, "dispatch"), ["g1", "g2"]);
  });

  test("tree: a recursive model", async ({ page }) => {
    const { episode, form } = await openTool(page, "canvas", "tree");
    await form.getByLabel("root name").fill("top");
    await form.getByRole("button", { name: "Add item to root children" }).click();
    await form.getByLabel("root children #1 name").fill("kid");
    await form.getByRole("button", { name: "Add item to root children #1 children" }).click();
    await form.getByLabel("root children #1 children #1 name").fill("grandkid");
    await form.getByRole("button", { name: "Call tree" }).click();
    await expectContains(await episode.accepted(1, "tree"), ["3 nodes", "└── grandkid"]);
  });

  test("empty and null schemas take no input: one Call button, in the picker, the panel and the Tools tab", async ({
    page,
  }) => {
    const episode = await startEpisode(page, "farmplanner");
    for (const tool of ["view_state", "observe"]) {
      await expect(page.getByRole("radio", { name: tool, exact: true }).locator("..")).toContainText(
        "no input",
      );
      const panel = await episode.pickTool(tool);
      await expect(panel).toContainText("This tool takes no input.");
      await expect(panel.getByRole("tab")).toHaveCount(0);
    }
    await page.getByRole("button", { name: "Call observe" }).click();
    await episode.accepted(1, "observe");
    await page.goto("/s/py/e/canvas?tab=tools");
    await expect(page.getByRole("region", { name: "null_input" })).toContainText("This tool takes no input.");
    await page.goto("/s/py/e/farmplanner?tab=tools");
    await expect(page.getByRole("region", { name: "observe" })).toContainText("This tool takes no input.");
    // The Tools tab and the form agree: a default is optional there too; a docstring reads reflowed.
    const plan = page.getByRole("region", { name: "plan" });
    const extra = plan
      .getByRole("listitem")
      .filter({ has: page.locator("code", { hasText: /^extra_action$/ }) });
    await expect(extra).toContainText("optional");
    await expect(extra).toContainText('default "none"');
    // The docstring reflowed: its hard wrap joined (docs/playground-ui.md).
    await expect(plan.getByText(/^Submit the plan for every slot\. Returns/)).toBeVisible();
  });
});

test.describe("form behaviour", () => {
  test("errors: after leaving a typed field or a call attempt, only where reached, cleared when valid", async ({
    page,
  }) => {
    const { episode, form } = await openTool(page, "coffeeshop", "buy");
    const item = form.getByLabel("item_id");
    const qty = form.getByLabel("quantity");
    await item.click();
    await qty.click(); // left item_id without typing: nothing
    await expect(form.getByText("is required")).toHaveCount(0);
    await qty.fill("500");
    await expect(form.getByText("must be <= 100")).toHaveCount(0); // not while typing
    await qty.press("Tab");
    await expect(form.getByText("must be <= 100")).toBeVisible();
    await expect(qty).toHaveAttribute("aria-invalid", "true");
    await expect(form.getByText("is required")).toHaveCount(0); // item_id not reached
    await qty.fill("30");
    await expect(form.getByText("must be <= 100")).toHaveCount(0); // cleared at once
    await form.getByRole("button", { name: "Call buy" }).click();
    await expect(form.getByText("is required")).toBeVisible(); // after a call attempt
    await expect(item).toBeFocused();
    await item.fill("espresso");
    await expect(form.getByText("is required")).toHaveCount(0);
    await form.getByRole("button", { name: "Call buy" }).click();
    await episode.accepted(1, "buy");
  });

  test("an error that appears on leaving a field does not move a button away from the click", async ({
    page,
  }) => {
    const { episode, form } = await openTool(page, "canvas", "order");
    await form.getByLabel("items #1 qty").fill("0");
    // The click blurs qty (its error "must be >= 1" appears above the button) and still lands.
    await form.getByRole("button", { name: "Add item to tags" }).click();
    await expect(form.getByLabel("tags #1")).toBeVisible();
    await expect(form.getByText("must be >= 1")).toBeVisible();
    // Likewise on Call: the click is a call attempt (refused: the first error is focused).
    await fillByLabel(form, { "items #1 sku": "A", "tags #1": "x", "items #1 qty": "-1" });
    await form.getByRole("button", { name: "Call order" }).click();
    await expect(form.getByLabel("items #1 qty")).toBeFocused();
    await form.getByLabel("items #1 qty").fill("1");
    await form.getByRole("button", { name: "Call order" }).click();
    await episode.accepted(1, "order");
  });

  test("a checkbox click is never lost after a Form/JSON switch and sibling edits", async ({ page }) => {
    const { episode, form } = await openTool(page, "canvas", "order");
    await fillByLabel(form, { "items #1 sku": "A", "items #1 qty": "1" });
    await form.getByLabel("vip").check();
    await form.getByRole("tab", { name: "JSON" }).click();
    const editor = form.getByLabel("Input JSON of order");
    await expect(editor).toContainText('"vip": true');
    await form.getByRole("tab", { name: "Form" }).click();
    await form.getByLabel("items #1 sku").fill("B");
    const vip = form.getByLabel("vip");
    await expect(vip).toBeChecked();
    await vip.click();
    await expect(vip).not.toBeChecked();
    await form.getByLabel("items #1 gift").click();
    await form.getByLabel("coupon").fill("SAVE10");
    await vip.click();
    await expect(vip).toBeChecked();
    await form.getByRole("tab", { name: "JSON" }).click();
    await expect(editor).toContainText('"vip": true');
    await expect(editor).toContainText('"gift": true');
    await form.getByRole("tab", { name: "Form" }).click();
    await form.getByRole("button", { name: "Call order" }).click();
    await expect(await episode.accepted(1, "order")).toContainText("VIP: yes");
  });

  test("Enter never calls (a new line in free text); Ctrl+Enter calls from a field and from the JSON editor", async ({
    page,
  }) => {
    const { episode, form } = await openTool(page, "triagedesk", "handoff");
    await form.getByLabel("patient_id").fill("P1");
    await combo(form, "disposition").selectOption("admit");
    const notes = form.getByLabel("notes");
    await notes.click();
    await page.keyboard.type("stable");
    await page.keyboard.press("Enter");
    await page.keyboard.type("no allergies");
    await expect(notes).toHaveValue("stable\nno allergies");
    await expect(page.getByText("No steps yet.")).toBeVisible();
    const input = await episode.sentInput("handoff", () => page.keyboard.press("Control+Enter"));
    expect(input).toEqual({ patient_id: "P1", disposition: "admit", notes: "stable\nno allergies" });
    await episode.accepted(1, "handoff");
    // From the JSON editor.
    await form.getByRole("tab", { name: "JSON" }).click();
    const editor = form.getByLabel("Input JSON of handoff");
    await editor.fill('{"patient_id": "P2", "disposition": "discharge", "notes": "ok"}');
    await editor.press("Control+Enter");
    await expect(await episode.accepted(2, "handoff")).toContainText("P2");
  });

  test("a one-line field: Enter confirms and changes nothing; whitespace is flagged; a field switches to several lines", async ({
    page,
  }) => {
    const { episode, form } = await openTool(page, "triagedesk", "handoff");
    const id = form.getByLabel("patient_id");
    await expect(id).toHaveJSProperty("tagName", "INPUT");
    await id.fill("case-17");
    await id.press("Enter");
    await expect(id).toHaveValue("case-17");
    await expect(page.getByText("No steps yet.")).toBeVisible();
    // Enter confirmed the field: its own errors would show; nothing else moved or was sent.
    await expect(id).toBeFocused();
    // A trailing space is flagged beside the field before anything is sent, and trimmed on request.
    await id.press("End");
    await id.press("Space");
    const flag = form.getByText(/Whitespace: the value ends with a space; it is sent as typed\./);
    await expect(flag).toBeVisible();
    await expect(id).toHaveAttribute("aria-describedby", /__whitespace/);
    await form.getByRole("button", { name: "Trim patient_id" }).click();
    await expect(id).toHaveValue("case-17");
    await expect(flag).toHaveCount(0);
    // Free text is a growing text area; a short field switches to one when asked (and back).
    await expect(form.getByLabel("notes")).toHaveJSProperty("tagName", "TEXTAREA");
    const toggle = form.getByRole("button", { name: "patient_id multi-line" });
    await expect(toggle).toHaveAttribute("aria-pressed", "false");
    await toggle.press("Enter");
    await expect(toggle).toHaveAttribute("aria-pressed", "true");
    await form.getByLabel("patient_id").click();
    await page.keyboard.press("End");
    await page.keyboard.press("Enter");
    await expect(form.getByLabel("patient_id")).toHaveValue("case-17\n");
    await expect(form.getByText(/the value ends with a line break/)).toBeVisible();
    await form.getByRole("button", { name: "Trim patient_id" }).click();
    await toggle.click();
    await expect(form.getByLabel("patient_id")).toHaveJSProperty("tagName", "INPUT");
    await combo(form, "disposition").selectOption("observe");
    await form.getByLabel("notes").fill("stable");
    const input = await episode.sentInput("handoff", () => page.keyboard.press("Control+Enter"));
    expect(input).toEqual({ patient_id: "case-17", disposition: "observe", notes: "stable" });
  });

  test("a map: a new entry's key starts empty; a repeated key is an error on its entry, never renamed or sent", async ({
    page,
  }) => {
    const { episode, form } = await openTool(page, "canvas", "dispatch");
    const calls: string[] = [];
    page.on("request", (r) => {
      if (r.method() === "POST" && r.url().endsWith("/call")) calls.push(r.postData() ?? "");
    });
    await form.getByRole("button", { name: "Add entry to units" }).click();
    await expect(form.getByLabel("units #1 key")).toHaveValue("");
    await fillByLabel(form, { "units #1 key": "g1", "units #1 value": "100" });
    await form.getByRole("button", { name: "Add entry to units" }).click();
    await fillByLabel(form, { "units #2 key": "g1", "units #2 value": "20" });
    await expect(form.getByText('"g1" is already the key of entry #1')).toBeVisible();
    await expect(form.getByLabel("units #2 key")).toHaveValue("g1");
    await expect(form.getByLabel("units #2 key")).toHaveAttribute("aria-invalid", "true");
    await form.getByRole("button", { name: "Call dispatch" }).click();
    await expect(form.getByLabel("units #2 key")).toBeFocused();
    expect(calls).toEqual([]);
    // The JSON tab shows the value without it, and says so.
    await form.getByRole("tab", { name: "JSON" }).click();
    await expect(form.getByText(/units #2: "g1" is already the key of entry #1/)).toBeVisible();
    await expect(form.getByLabel("Input JSON of dispatch")).not.toContainText("g1-1");
    await form.getByRole("tab", { name: "Form" }).click();
    await form.getByLabel("units #2 key").fill("g2");
    const input = await episode.sentInput("dispatch", () =>
      form.getByRole("button", { name: "Call dispatch" }).click(),
    );
    expect(input).toEqual({ units: { g1: 100, g2: 20 } });
  });

  test("the JSON tab names keys the form cannot show, and refuses additionalProperties: false keys as typed", async ({
    page,
  }) => {
    const { episode, form } = await openTool(page, "canvas", "dispatch");
    await form.getByRole("tab", { name: "JSON" }).click();
    const editor = form.getByLabel("Input JSON of dispatch");
    const status = form.locator('[id$="-json-status"]');
    await editor.fill('{"units": {"g1": 5}}');
    await expect(status).toHaveText("Valid JSON object; the form shows the same value.");
    // Typed, not called: the refusal shows at once.
    await editor.fill('{"units": {"g1": 5}, "mode": "eco"}');
    await expect(status).toContainText("Not allowed");
    await expect(status).toContainText("mode");
    await expect(page.getByText("No steps yet.")).toBeVisible();
    // A model without additionalProperties: a key the form has no field for is named, kept and sent.
    const buy = await episode.pickTool("order");
    await buy.getByRole("tab", { name: "JSON" }).click();
    await buy.getByLabel("Input JSON of order").fill('{"items": [{"sku": "A-1", "qty": 1, "note": "x"}]}');
    await expect(buy.locator('[id$="-json-status"]')).toContainText(
      "The form has no field for items[0].note: it is kept and sent as typed.",
    );
    await buy.getByRole("tab", { name: "Form" }).click();
    await expect(buy.getByRole("note")).toContainText("items[0].note");
  });

  test("one-line fields: Enter does nothing", async ({ page }) => {
    const { episode, form } = await openTool(page, "coffeeshop", "buy");
    await fillByLabel(form, { item_id: "espresso", quantity: "3" });
    await form.getByLabel("quantity").press("Enter");
    await expect(page.getByText("No steps yet.")).toBeVisible();
    await expect(form.getByLabel("quantity")).toHaveValue("3");
    await form.getByLabel("quantity").press("Control+Enter");
    await episode.accepted(1, "buy");
  });
});

test.describe("the JSON editor", () => {
  test("is its own chunk, loaded when the tab opens; highlights, places parse errors, completes from the schema", async ({
    page,
  }) => {
    const scripts: { url: string; body: Promise<string> }[] = [];
    page.on("response", (r) => {
      if (r.request().resourceType() === "script")
        scripts.push({ url: r.url(), body: r.text().catch(() => "") });
    });
    const hasEditor = async () =>
      (await Promise.all(scripts.map((s) => s.body))).some((b) => b.includes("cm-lintRange"));
    const { form } = await openTool(page, "canvas", "draw");
    expect(await hasEditor()).toBe(false); // not in the page's scripts, nor in the form's
    const before = scripts.length;
    await form.getByRole("tab", { name: "JSON" }).click();
    const editor = form.getByLabel("Input JSON of draw");
    await expect(editor).toBeVisible();
    await expect.poll(hasEditor).toBe(true);
    expect(scripts.length).toBeGreaterThan(before);

    // Syntax highlighting: a property name and a string are coloured differently.
    await expect(editor).toContainText('"shape"');
    const colour = (text: string) =>
      editor
        .locator("span", { hasText: new RegExp(`^${text}$`) })
        .first()
        .evaluate((el) => getComputedStyle(el).color);
    expect(await colour('"shape"')).not.toBe(await colour('"circle"'));

    // Bracket matching: the cursor beside a brace marks its pair.
    await editor.press("Control+Home");
    await expect(form.locator(".cm-matchingBracket")).toHaveCount(2);

    // A parse error is marked at the offending character, and its line and column are said.
    await editor.fill('{\n  "shape": {"kind": "circle"},\n  "colour": ]\n}');
    await expect(form.locator(".cm-lintRange-error")).toHaveText("]");
    await expect(form.getByText(/Invalid JSON: .* at line 3, column 13/)).toBeVisible();
    await form.getByRole("tab", { name: "Form" }).click();
    await expect(form.getByText("The JSON tab has invalid JSON")).toBeVisible(); // the value is untouched
    await expect(combo(form, "shape")).toHaveValue("0");

    // Completion: an enum value by its $ref, then a property name of the tagged union's option.
    await form.getByRole("tab", { name: "JSON" }).click();
    await editor.fill('{\n  "shape": {"kind": "rect", },\n  "colour": \n}');
    await editor.press("Control+Home");
    await editor.press("ArrowDown");
    await editor.press("ArrowDown");
    await editor.press("End");
    await editor.press("Control+Space");
    const options = page.getByRole("listbox");
    await expect(options.getByRole("option")).toHaveCount(3);
    for (const v of ['"red"', '"green"', '"blue"']) await expect(options).toContainText(v);
    await options.getByRole("option", { name: /"blue"/ }).click();
    await expect(editor).toContainText('"colour": "blue"');
    await editor.press("ArrowUp");
    await editor.press("End");
    for (let i = 0; i < 2; i++) await editor.press("ArrowLeft"); // inside `{"kind": "rect", |}`
    await editor.press("Control+Space");
    await expect(options.getByRole("option")).toHaveCount(2);
    await expect(options.getByRole("option").first()).toContainText('"corner"');
    await expect(options.getByRole("option").last()).toContainText('"size"');
    // CodeMirror takes no keys from a completion list in its first 75 ms (interactionDelay), so that
    // keys typed before a person could see it do not pick from it; a person sees the list first.
    const listShown = Date.now();
    await expect.poll(() => Date.now() - listShown).toBeGreaterThan(150);
    await editor.press("Enter");
    await expect(editor).toContainText('"kind": "rect", "corner": ');
    // Keyboard: Tab leaves the editor (it does not trap focus).
    await editor.press("Escape");
    await editor.press("Tab");
    await expect(editor).not.toBeFocused();
  });
});

test("a whole episode through forms only: farmplanner train/0 to finished, with its rewards", async ({
  page,
}) => {
  const { episode, form } = await openTool(page, "farmplanner", "plan");
  for (let n = 1; n <= 3; n++) {
    for (const slot of ["slot_1", "slot_2", "slot_3", "slot_4"]) {
      // The input is remembered between calls: fill only what is empty.
      const crop = form.getByLabel(`${slot} crop`);
      if ((await crop.inputValue()) === "") {
        await crop.fill("wheat");
        await form.getByLabel(`${slot} level`).fill("medium");
      }
    }
    await form.getByRole("button", { name: "Call plan" }).click();
    const out = await episode.accepted(n, "plan");
    await expect(out).toContainText(`step: ${n} of 3`);
    await expect(episode.step(n, "plan")).toContainText("+1.6");
  }
  await expect(episode.step(3, "plan").getByText("finished", { exact: true })).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: "Episode finished" })).toBeVisible();
  const table = page.getByRole("table", { name: "Reward per step" });
  await expect(table.getByRole("row")).toHaveCount(4);
  await expect(table).toContainText("4.8");
});
