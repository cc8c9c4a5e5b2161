// @vitest-environment jsdom
// A long text of environment output is never one giant DOM node: the first page, more pages on
// request, every line virtualized on "Show all", and a download of the whole text. The SSE log of
// a huge result shows its latest rows. (Browser layout and timing: e2e/outputs.spec.ts.)
import { act, cleanup, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BlocksView } from "@/components/episode/blocks-view";
import { LONG_TEXT, PAGE_CHARS, pageEnd, utf8Bytes } from "@/components/episode/long-text";
import { ROW_CHARS, rowStarts } from "@/components/episode/long-text-all";
import { LIVE_ROWS, MAX_ROWS, StreamLog } from "@/components/episode/stream-log";
import type { StepEvent } from "@/lib/trajectory/schema";
import { step } from "../../episodes/helpers";

afterEach(cleanup);

/** 4 MiB of numbered ASCII lines (the text a 50 MiB result is stored as, at the step-size cap). */
const BIG = Array.from(
  { length: 61_000 },
  (_, i) => `${String(i).padStart(6, "0")}: ${"lorem ipsum ".repeat(5)}`,
)
  .join("\n")
  .slice(0, 4 * 1024 * 1024);

/** The longest text node in the document. */
function longestTextNode(): number {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let max = 0;
  for (let n = walker.nextNode(); n; n = walker.nextNode()) max = Math.max(max, n.textContent?.length ?? 0);
  return max;
}

describe("pages and rows", () => {
  it("cuts pages after a line break near their end; rows at line breaks and every ROW_CHARS", () => {
    const end = pageEnd(BIG, 0);
    expect(end).toBeLessThanOrEqual(PAGE_CHARS);
    expect(BIG[end - 1]).toBe("\n");
    expect(pageEnd("x".repeat(50_000), 0)).toBe(PAGE_CHARS); // no line break: cut where the page ends
    expect([...rowStarts("a\nbb\n")]).toEqual([0, 2]);
    expect([...rowStarts("a\n\nb")]).toEqual([0, 2, 3]);
    const long = "y".repeat(ROW_CHARS * 2 + 5);
    expect([...rowStarts(`${long}\nz`)]).toEqual([0, ROW_CHARS, ROW_CHARS * 2, long.length + 1]);
    expect(utf8Bytes("aé✓🙂")).toBe(1 + 2 + 3 + 4);
  });
});

describe("a long text block", () => {
  it("shows its first page, then more, then every line virtualized; never one giant node", async () => {
    const user = userEvent.setup({ delay: null });
    render(<BlocksView id="s:1" blocks={[{ type: "text", text: BIG }]} />);
    const first = screen.getByRole("region", { name: "Text" });
    expect(first.textContent!.length).toBeLessThanOrEqual(PAGE_CHARS);
    expect(first.textContent).toContain("000000: lorem");
    expect(
      screen.getByText(
        `${(BIG.length / 1048576).toFixed(2)} MB of text, ${BIG.length.toLocaleString()} characters`,
        {
          exact: false,
        },
      ),
    ).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Show more" }));
    expect(screen.getByRole("region", { name: "Text" }).textContent!.length).toBeGreaterThan(PAGE_CHARS);
    await user.click(screen.getByRole("button", { name: "Show all" }));
    const all = await screen.findByRole("region", { name: /^Text, all [\d,]+ lines$/ });
    expect(all.getAttribute("aria-label")).toBe(`Text, all ${rowStarts(BIG).length.toLocaleString()} lines`);
    expect(longestTextNode()).toBeLessThan(2 * PAGE_CHARS);
    await user.click(screen.getByRole("button", { name: "Collapse" }));
    expect(screen.getByRole("region", { name: "Text" }).textContent!.length).toBeLessThanOrEqual(PAGE_CHARS);
  });

  it("downloads the whole text as a file", async () => {
    const user = userEvent.setup({ delay: null });
    const blobs: Blob[] = [];
    // jsdom has no object URLs: this stands in for the browser's (e2e checks the real download).
    URL.createObjectURL = vi.fn((b: Blob) => {
      blobs.push(b);
      return "blob:x";
    });
    URL.revokeObjectURL = vi.fn();
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});
    render(
      <BlocksView
        id="s:2"
        blocks={[
          { type: "text", text: "short" },
          { type: "text", text: BIG },
        ]}
      />,
    );
    await user.click(screen.getByRole("button", { name: "Download text of block 2" }));
    expect(click).toHaveBeenCalledTimes(1);
    expect(await blobs[0]!.text()).toBe(BIG);
    click.mockRestore();
  });

  it("a short text stays whole (no paging) up to LONG_TEXT characters", () => {
    const text = "word ".repeat(LONG_TEXT / 5);
    render(<BlocksView blocks={[{ type: "text", text }]} />);
    expect(screen.queryByRole("button", { name: "Show all" })).toBeNull();
  });
});

describe("the SSE log of a huge result", () => {
  it("redraws a running log a few times a second, not on every update", async () => {
    vi.useFakeTimers();
    try {
      const frame = (n: number): StepEvent => ({
        t: n,
        kind: "event",
        event: "chunk",
        data: `piece ${n}`,
        size: 1,
      });
      const at = (n: number) =>
        step(1, { ok: null, ended_at: null, events: Array.from({ length: n }, (_, i) => frame(i)) });
      const view = render(<StreamLog step={at(1)} running />);
      const log = screen.getByRole("list", { name: "Stream of step 1" });
      await act(async () => vi.advanceTimersByTime(300));
      view.rerender(<StreamLog step={at(2)} running />);
      expect(log.textContent).toContain("piece 1");
      // A second update within the redraw interval waits for it; the latest one is then drawn.
      view.rerender(<StreamLog step={at(3)} running />);
      expect(log.textContent).not.toContain("piece 2");
      await act(async () => vi.advanceTimersByTime(300));
      expect(log.textContent).toContain("piece 2");
      // An ended call is drawn at once.
      view.rerender(<StreamLog step={{ ...at(4), ok: true, ended_at: 10 }} running={false} />);
      expect(log.textContent).toContain("piece 3");
    } finally {
      vi.useRealTimers();
    }
  });

  it("shows the latest rows and how many came before; all on request", async () => {
    const events: StepEvent[] = Array.from({ length: 1000 }, (_, n) => ({
      t: n,
      kind: "event",
      event: "chunk",
      data: `piece ${n}`,
      size: 4096,
    }));
    const s = step(1, { ok: null, ended_at: null, events });
    const view = render(<StreamLog step={s} running />);
    const log = screen.getByRole("list", { name: "Stream of step 1" });
    // While the call runs, fewer rows (each is laid out on every redraw).
    expect(log.querySelectorAll("li")).toHaveLength(LIVE_ROWS + 1);
    expect(log.textContent).toContain("piece 999");
    expect(log.textContent).not.toContain("piece 949 ");
    expect(screen.getByText(`${1000 - LIVE_ROWS} earlier events not shown.`, { exact: false })).toBeTruthy();
    // Once it has ended, the latest MAX_ROWS.
    view.rerender(<StreamLog step={{ ...s, ok: true, ended_at: 2000 }} running={false} />);
    expect(log.querySelectorAll("li")).toHaveLength(MAX_ROWS + 1);
    expect(log.textContent).not.toContain("piece 0 ");
    expect(screen.getByText(/800 earlier events not shown/)).toBeTruthy();
    await act(async () => {
      screen.getByRole("button", { name: "Show all 1,000" }).click();
    });
    expect(log.querySelectorAll("li")).toHaveLength(1000);
  });
});
