// @vitest-environment jsdom
// SectionCard (components/ui/card.tsx) is the titled card the panels share: its title is a heading
// other elements can name it by, `aside` sits in the header, and the body takes its own classes.
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { SectionCard } from "@/components/ui/card";

afterEach(cleanup);

describe("SectionCard", () => {
  it("puts the title in a heading with its id, the aside beside it and the children in the body", () => {
    render(
      <SectionCard
        title="Review queues"
        titleId="queues-title"
        aside={<span>3 open</span>}
        bodyClassName="gap-4"
      >
        <ul aria-labelledby="queues-title">
          <li>first</li>
        </ul>
      </SectionCard>,
    );
    const heading = screen.getByRole("heading", { level: 2, name: "Review queues" });
    expect(heading.id).toBe("queues-title");
    expect(screen.getByRole("list", { name: "Review queues" })).toBeTruthy();
    expect(heading.parentElement?.textContent).toBe("Review queues3 open");
    const body = screen.getByText("first").closest("ul")?.parentElement;
    expect(body?.className).toBe("p-3 gap-4");
    expect(body?.previousElementSibling).toBe(heading.parentElement);
  });

  it("leaves the title without an id when none is given", () => {
    render(<SectionCard title="Outcomes">body</SectionCard>);
    expect(screen.getByRole("heading", { name: "Outcomes" }).hasAttribute("id")).toBe(false);
  });
});
