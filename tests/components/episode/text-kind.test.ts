import { describe, expect, it } from "vitest";
import {
  classifyText,
  couldBeMarkdown,
  isMarkdown,
  looksPreformatted,
  markdownSyntaxKinds,
} from "@/components/episode/text-kind";
import type { ToolOutput } from "@/tests/fixtures/reference-server/environment";
import { canvas } from "@/tests/fixtures/reference-server/environments/canvas";
import { coffeeShop } from "@/tests/fixtures/reference-server/environments/coffee";
import { farmPlanner } from "@/tests/fixtures/reference-server/environments/farm";
import { triageDesk } from "@/tests/fixtures/reference-server/environments/triage";

// Outputs as Python ORS environments write them (plain reports, tables, emoji), and Markdown.
const PLAIN: [string, string][] = [
  ["one line", "Correct!"],
  ["key: value lines", "Day: 3\nCash: $1,240.50\nInventory: 42 bags\nWeather: sunny"],
  [
    "one fact per line",
    "Vehicle 2 left the depot.\nVehicle 2 reached stop 7 at 09:42.\nLoad: 12/20\nRemaining stops: 4",
  ],
  ["emoji lines", "✅ Planted wheat in field 3\n💧 Irrigation: 40%\n🌡️ Temperature: 21°C\n⚠️ Pests reported"],
  [
    "a report with - bullets (plain: no second kind of Markdown)",
    "Triage summary:\n- Patient 4: stable\n- Patient 7: needs review\n- Patient 9: discharged",
  ],
  ["* bullets alone", "Actions taken:\n* opened valve A\n* closed breaker 3"],
  ["a formula with *", "Cost = 3*x + 2*y\nArea = w * h * 0.5\nPower: 2**10 = 1024"],
  ["a hashtag", "#winning #coffee today was good"],
  ["an issue number", "Fixed in #12, see #13 for the rest."],
  ["a '# of' line and key: values", "# of guesses left: 4\nLast guess: CRANE"],
  ["single underscore identifiers", "set max_load_kg to 500 and retry_count to 3\nuse_cache = True"],
  ["a dunder alone", "called __init__ twice"],
  ["numbers with dashes", "-5 degrees overnight\n-2 tomorrow"],
  ["a lone `---` line", "Round 1\n---\nRound 2"],
  ["an ASCII table with + corners", "name  | score\n------+------\nalice | 3\nbob   | 5"],
  ["Wordle feedback", "CRANE\n🟩⬜🟨⬜⬜\nGuesses left: 5"],
  ["a single code span", "Call `submit` when you are done."],
  ["a single strong", "You scored **3** points."],
  ["a single link", "Docs: [grid](https://example.com/grid)"],
  ["a quoted line alone", "> customer: the latte was cold\nRefund issued."],
  ["an unclosed fence", "```\nno closing fence here"],
];

const MARKDOWN: [string, string][] = [
  [
    "a GFM table",
    "| crop | field | yield |\n|------|-------|------:|\n| wheat | 3 | 4.2 |\n| corn | 1 | 7.9 |",
  ],
  ["a GFM table without outer pipes", "crop | yield\n:--- | ---:\nwheat | 4.2"],
  ["a one-column GFM table with pipes", "| crop |\n| --- |\n| wheat |"],
  ["a fenced block", "Run this:\n```python\nprint('hi')\n```"],
  ["a tilde fence", "~~~\nraw\n~~~"],
  ["## heading + list", "## Shift report\n- 3 patients admitted\n- 1 discharged"],
  ["heading + strong", "# Result\n**Solved** in 4 guesses."],
  ["list + emphasis", "Options:\n- *wait* a turn\n- move north"],
  ["list + code", "Tools:\n1. `plant` a crop\n2. `harvest` a field"],
  ["strong + link", "**Grid status**: see [dashboard](https://example.com)."],
  ["blockquote + strong", "> **Note**: the store closes at 6."],
  ["underscore emphasis + heading", "### Notes\n_draft_ only"],
  [
    "a Markdown report with nested lists",
    "## Plan\n- Field 1\n  - plant wheat\n  - irrigate\n- Field 2\n  - leave fallow",
  ],
];

describe("isMarkdown", () => {
  it.each(PLAIN)("plain: %s", (_, text) => {
    expect(isMarkdown(text)).toBe(false);
  });
  it.each(MARKDOWN)("Markdown: %s", (_, text) => {
    expect(isMarkdown(text)).toBe(true);
  });
});

describe("markdownSyntaxKinds", () => {
  it("names each kind once", () => {
    expect(markdownSyntaxKinds("## A\n## B\n- x\n- y\n**b** and **c**")).toEqual([
      "heading",
      "list",
      "strong",
    ]);
    expect(markdownSyntaxKinds("> q\n`c` *e* [l](u)")).toEqual(["blockquote", "emphasis", "code", "link"]);
  });

  it("does not read identifiers, formulas, hashtags or negative numbers as syntax", () => {
    expect(markdownSyntaxKinds("max_load_kg = 2*x + 3*y; #tag #12; -5")).toEqual([]);
  });
});

describe("looksPreformatted", () => {
  it("is true for aligned or indented tables, JSON and box drawing", () => {
    expect(
      looksPreformatted("Inventory:\n  item     qty  price\n  beans     12   4.50\n  milk       3   1.20"),
    ).toBe(true);
    expect(looksPreformatted("Name:    Alice\nAge:     30\nRole:    nurse")).toBe(true);
    expect(looksPreformatted('{\n  "a": 1,\n  "b": [1, 2]\n}')).toBe(true);
    expect(looksPreformatted("┌───┬───┐\n│ 1 │ 2 │\n└───┴───┘")).toBe(true);
    expect(looksPreformatted("col\tcol\nval\tval")).toBe(true);
  });

  it("is false for prose, key: value lines, sentence spacing and nested Markdown lists", () => {
    expect(looksPreformatted("Day: 3\nCash: $1,240.50")).toBe(false);
    expect(looksPreformatted("It rained.  The crop grew.\nThen it froze.  Nothing grew.")).toBe(false);
    expect(looksPreformatted("- a\n  - b\n  - c")).toBe(false);
    expect(looksPreformatted("[link](u)\n[other](v)")).toBe(false);
  });
});

describe("classifyText", () => {
  it("keeps preformatted text plain unless it has a fence or a GFM table", () => {
    const aligned = "## Stock\n- beans\n  qty    price\n  12     4.50\n  3      1.20";
    expect(classifyText(aligned)).toEqual({ markdown: false, preformatted: true });
    expect(classifyText("| a   | b   |\n| --- | --- |\n| 1   | 2   |")).toEqual({
      markdown: true,
      preformatted: false,
    });
    expect(classifyText("Day: 3\nCash: 12")).toEqual({ markdown: false, preformatted: false });
  });
});

describe("couldBeMarkdown", () => {
  it("is false only for one line without Markdown characters", () => {
    expect(couldBeMarkdown("Correct!")).toBe(false);
    expect(couldBeMarkdown("Wrong: expected 42, got 41.")).toBe(false);
    expect(couldBeMarkdown("two\nlines")).toBe(true);
    expect(couldBeMarkdown("You scored **3** points")).toBe(true);
    expect(couldBeMarkdown("- one item")).toBe(true);
    expect(couldBeMarkdown("# Title")).toBe(true);
  });
});

// The outputs of the reference-shaped test server's environments (tests/fixtures/reference-server),
// produced by their real tool functions: how each must read by default.
describe("classifyText on the reference-shaped server's outputs", () => {
  const textOf = async (out: Promise<ToolOutput> | ToolOutput) => {
    const block = (await out).blocks[0]!;
    if (block.type !== "text") throw new Error("expected a text block");
    return block.text;
  };
  const opts = { setupMs: 0 };

  it("farmplanner: plain facts, emoji sensors and aligned state are plain; history is Markdown", async () => {
    const farm = farmPlanner.create(farmPlanner.listTasks("train")[0]!, {}, opts);
    const prompt = (await farm.getPrompt())[0]!;
    expect(prompt.type === "text" && classifyText(prompt.text)).toEqual({
      markdown: false,
      preformatted: false,
    });
    const slot = { crop: "wheat", level: "low" };
    const plan = await textOf(farm.tools.plan!({ slot_1: slot, slot_2: slot, slot_3: slot, slot_4: slot }));
    expect(plan).toContain("\nwater left: ");
    expect(classifyText(plan)).toEqual({ markdown: false, preformatted: false });
    expect(classifyText(await textOf(farm.tools.read!({})))).toEqual({
      markdown: false,
      preformatted: false,
    });
    expect(classifyText(await textOf(farm.tools.view_state!({})))).toEqual({
      markdown: false,
      preformatted: true,
    });
    expect(classifyText(await textOf(farm.tools.history!({ lookback: 3 })))).toEqual({
      markdown: true,
      preformatted: false,
    });
    const survey = await textOf(farm.tools.observe!({}));
    expect(survey.length).toBeGreaterThan(4096);
    expect(classifyText(survey)).toEqual({ markdown: false, preformatted: true });
  });

  it("coffeeshop: the Markdown prompt and sales are Markdown, a purchase is plain", async () => {
    const shop = coffeeShop.create(coffeeShop.listTasks("train")[0]!, {}, opts);
    const prompt = (await shop.getPrompt())[0]!;
    expect(prompt.type === "text" && isMarkdown(prompt.text)).toBe(true);
    expect(isMarkdown(await textOf(shop.tools.buy!({ item_id: "espresso", quantity: 10 })))).toBe(false);
    expect(isMarkdown(await textOf(shop.tools.set_price!({ item_id: "espresso", price: 3 })))).toBe(true);
  });

  it("triagedesk: a handoff with indented notes is plain", async () => {
    const desk = triageDesk.create(triageDesk.listTasks("train")[0]!, {}, opts);
    const out = await textOf(
      desk.tools.handoff!({ patient_id: "P1", disposition: "admit", notes: "ECG done\n- troponin pending" }),
    );
    expect(isMarkdown(out)).toBe(false);
  });

  it("canvas: key: value lines and aligned tables are plain, the receipt is Markdown, the tree monospace", async () => {
    const c = canvas.create(canvas.listTasks("train")[0]!, {}, opts);
    const drawn = await textOf(
      c.tools.draw!({
        shape: { kind: "rect", corner: { x: 0, y: 0 }, size: [2, 3] },
        colour: "red",
        label: null,
        anchor: null,
        level: 1,
      }),
    );
    expect(classifyText(drawn)).toEqual({ markdown: false, preformatted: false });
    const dispatch = await textOf(c.tools.dispatch!({ units: { gas: 100, wind: 10 } }));
    expect(classifyText(dispatch)).toEqual({ markdown: false, preformatted: true });
    const receipt = await textOf(
      c.tools.order!({ items: [{ sku: "A-1", qty: 2, gift: true }], vip: true, coupon: null, tags: [] }),
    );
    expect(isMarkdown(receipt)).toBe(true);
    const tree = await textOf(
      c.tools.tree!({
        root: {
          name: "root",
          children: [
            { name: "a", children: [] },
            { name: "b", children: [] },
          ],
        },
      }),
    );
    expect(classifyText(tree)).toEqual({ markdown: false, preformatted: true });
  });
});
