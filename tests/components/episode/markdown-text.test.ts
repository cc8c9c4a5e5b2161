// The Markdown renderer and the text block, rendered to HTML by React's server renderer (the real
// components, no DOM needed): line breaks kept, no raw HTML, images only as raster data: URLs,
// plain text shown as it is with its Markdown/Raw switch.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { BlocksView } from "@/components/episode/blocks-view";
import { MarkdownText } from "@/components/episode/markdown-text";

const md = (text: string) => renderToStaticMarkup(createElement(MarkdownText, { text }));

/** The value of the checked radio in the HTML. */
function checkedValue(html: string): string | undefined {
  const checked = html.match(/<input type="radio"[^>]*>/g)?.find((i) => i.includes('checked=""'));
  return checked?.match(/value="([^"]*)"/)?.[1];
}

describe("MarkdownText", () => {
  it("keeps the author's line breaks inside a paragraph", () => {
    const html = md("**Status**\nDay: 3\nCash: 12");
    expect(html).toMatch(/<p><strong>Status<\/strong><br\/>\s*Day: 3<br\/>\s*Cash: 12<\/p>/);
  });

  it("keeps list items, code and tables as Markdown", () => {
    expect(md("## Plan\n- one\n- two")).toMatch(
      /<h2>Plan<\/h2>\s*<ul>\s*<li>one<\/li>\s*<li>two<\/li>\s*<\/ul>/,
    );
    expect(md("```\na\n  b\n```")).toContain("a\n  b");
    const table = md("| crop | yield |\n| --- | ---: |\n| wheat | 4.2 |");
    expect(table).toContain("<table");
    expect(table).toMatch(/<th[^>]*>crop<\/th>/);
    expect(table).toMatch(/<td[^>]*>4.2<\/td>/);
  });

  it("drops raw HTML and unsafe links", () => {
    const html = md(
      'hi <script>alert(1)</script> <img src=x onerror="alert(1)">\n\n[x](javascript:alert(1))',
    );
    expect(html).not.toContain("<script");
    expect(html).not.toContain("onerror");
    expect(html).not.toContain("javascript:");
  });

  it("shows images only as raster data: URLs", () => {
    expect(md("![remote](https://example.com/a.png)")).toContain("[image not loaded: remote]");
    expect(md("![svg](data:image/svg+xml;base64,PHN2Zz4=)")).toContain("[image not loaded: svg]");
    expect(md("![dot](data:image/png;base64,iVBORw0KGgo=)")).toContain(
      'src="data:image/png;base64,iVBORw0KGgo="',
    );
  });
});

describe("BlocksView text", () => {
  const render = (text: string) =>
    renderToStaticMarkup(createElement(BlocksView, { blocks: [{ type: "text", text }] }));

  it("shows plain text as it is, with a Markdown/Raw switch on Raw", () => {
    const html = render("Day: 3\n- cash: 12\n- stock: 4");
    expect(html).toContain('data-text-view="raw"');
    expect(html).toContain("Day: 3\n- cash: 12\n- stock: 4");
    expect(html).toContain('role="radiogroup" aria-label="Text view"');
    expect(checkedValue(html)).toBe("raw");
    expect(html).not.toContain("<pre"); // not preformatted: proportional text, line breaks kept
  });

  it("shows aligned text in monospace", () => {
    expect(render("item   qty\nbeans   12")).toContain("<pre");
  });

  it("starts Markdown text on Markdown", () => {
    const html = render("## Plan\n- one\n- two");
    expect(html).toContain('data-text-view="markdown"');
    expect(checkedValue(html)).toBe("markdown");
  });

  it("leaves the switch out where both views would look alike, and names switches per block", () => {
    expect(render("Correct!")).not.toContain("radiogroup");
    const two = renderToStaticMarkup(
      createElement(BlocksView, {
        blocks: [
          { type: "text", text: "a\nb" },
          { type: "text", text: "c\nd" },
        ],
      }),
    );
    expect(two).toContain('aria-label="Block 1 view"');
    expect(two).toContain('aria-label="Block 2 view"');
  });
});
