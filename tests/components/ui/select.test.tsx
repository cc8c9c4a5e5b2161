// @vitest-environment jsdom
// Select (components/ui/input.tsx): the leading options first, then the list's (a value shown as
// itself, or with its words), and the chosen value handed over as a string.
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { Label, Select } from "@/components/ui/input";

afterEach(cleanup);

describe("Select", () => {
  it("offers the leading options, then the list's, and hands over the choice", () => {
    const chosen: string[] = [];
    render(
      <>
        <Label htmlFor="s">Run</Label>
        <Select
          id="s"
          value=""
          onValueChange={(v) => chosen.push(v)}
          options={["local", { value: "abc123", label: "abc · math/test" }]}
        >
          <option value="">choose…</option>
        </Select>
      </>,
    );
    const select = screen.getByLabelText("Run") as HTMLSelectElement;
    expect([...select.options].map((o) => [o.value, o.text])).toEqual([
      ["", "choose…"],
      ["local", "local"],
      ["abc123", "abc · math/test"],
    ]);
    expect(select.className).toContain("rounded-md");
    fireEvent.change(select, { target: { value: "abc123" } });
    expect(chosen).toEqual(["abc123"]);
  });
});
