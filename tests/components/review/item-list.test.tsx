// @vitest-environment jsdom
// ItemList (components/review/form-parts.tsx): a review section's items as a list its title names,
// "Loading…" while they load, and the section's own words when there are none.
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { ItemList } from "@/components/review/form-parts";

afterEach(cleanup);

const list = (items: string[] | undefined, pending: boolean) => (
  <>
    <h2 id="t">Label sets</h2>
    <ItemList
      query={{ data: items && { items }, isPending: pending }}
      labelledBy="t"
      empty="No label set yet."
      className="text-sm"
    >
      {(s) => <li key={s}>{s}</li>}
    </ItemList>
  </>
);

describe("ItemList", () => {
  it("lists the items under the section's title", () => {
    render(list(["grading", "style"], false));
    const ul = screen.getByRole("list", { name: "Label sets" });
    expect([...ul.querySelectorAll("li")].map((li) => li.textContent)).toEqual(["grading", "style"]);
    expect(ul.className).toBe("text-sm");
  });

  it("says Loading… while pending and the section's words when there are none", () => {
    const { rerender } = render(list(undefined, true));
    expect(screen.getByText("Loading…")).toBeTruthy();
    rerender(list([], false));
    expect(screen.getByText("No label set yet.")).toBeTruthy();
    expect(screen.queryByRole("list")).toBeNull();
  });
});
