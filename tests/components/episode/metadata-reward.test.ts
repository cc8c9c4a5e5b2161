// MetadataView and RewardValue rendered by React's server renderer (the real components).
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { MetadataView } from "@/components/episode/metadata-view";
import { RewardValue } from "@/components/episode/reward-value";

const metadata = (value: Record<string, unknown> | null | undefined) =>
  renderToStaticMarkup(createElement(MetadataView, { value }));
const reward = (value: number | null, signed = false) =>
  renderToStaticMarkup(createElement(RewardValue, { value, signed }));

describe("MetadataView", () => {
  it("is absent for null, undefined and an empty object", () => {
    expect(metadata(null)).toBe("");
    expect(metadata(undefined)).toBe("");
    expect(metadata({})).toBe("");
  });

  it("shows flat metadata as a labelled, collapsible key/value list", () => {
    const html = metadata({ day: 3, weather: "sunny", ok: true, note: null });
    expect(html).toContain('<section aria-label="Metadata"');
    expect(html).toMatch(/<details[^>]*open=""/);
    expect(html).toMatch(/<summary[^>]*>Metadata <span[^>]*>· 4 keys<\/span><\/summary>/);
    expect(html).toMatch(/<dt[^>]*>day<\/dt><dd[^>]*><span[^>]*>3<\/span><\/dd>/);
    expect(html).toMatch(/<dt[^>]*>weather<\/dt><dd[^>]*><span[^>]*>sunny<\/span><\/dd>/);
    expect(html).toMatch(/<dt[^>]*>note<\/dt><dd[^>]*><span[^>]*>null<\/span><\/dd>/);
  });

  it("shows nested metadata as a JSON tree", () => {
    const html = metadata({ routes: [{ vehicle: 1 }], cost: 12.5 });
    expect(html).toContain("· 2 keys");
    expect(html).toContain('aria-label="Metadata JSON"');
    expect(html).not.toContain("<dl");
  });
});

describe("RewardValue", () => {
  it("shows an em dash that reads as 'no reward' for null", () => {
    const html = reward(null);
    expect(html).toContain('<span aria-hidden="true">—</span><span class="sr-only">no reward</span>');
  });

  it("shows the formatted reward, with the exact value as title when rounded", () => {
    expect(reward(0.5, true)).toMatch(/^<span class="tabular-nums">\+0\.5<\/span>$/);
    expect(reward(-0.5, true)).toContain(">-0.5<");
    expect(reward(1 / 3)).toContain('title="0.3333333333333333"');
    expect(reward(1 / 3)).toContain(">0.333333<");
    expect(reward(1500012.55)).toContain(">1.50001e+6<");
    expect(reward(1500012.55)).toContain('title="1500012.55"');
  });
});
