import { describe, expect, it } from "vitest";
import { classGroup, cn } from "@/lib/ui/cn";

describe("cn", () => {
  it("keeps the last class of a group", () => {
    expect(cn("px-2.5 h-8", "px-4")).toBe("h-8 px-4");
    expect(cn("mx-auto max-w-7xl py-6", "max-w-2xl py-16")).toBe("mx-auto max-w-2xl py-16");
    expect(cn("rounded", "rounded-lg")).toBe("rounded-lg");
    expect(cn("text-sm text-zinc-900", "text-xs")).toBe("text-zinc-900 text-xs");
    expect(cn("text-zinc-900 text-sm", "text-red-600")).toBe("text-sm text-red-600");
    expect(cn("bg-white dark:bg-zinc-900", "dark:bg-zinc-950")).toBe("bg-white dark:bg-zinc-950");
    expect(cn("p-3 text-sm", false, undefined, { "p-2": true })).toBe("text-sm p-2");
  });

  it("keeps classes of different groups, variants and sides", () => {
    expect(cn("flex flex-1 flex-col", "items-center")).toBe("flex flex-1 flex-col items-center");
    expect(cn("px-2 pl-7")).toBe("px-2 pl-7");
    expect(cn("rounded-md rounded-t-lg")).toBe("rounded-md rounded-t-lg");
    expect(cn("border border-zinc-200 border-b")).toBe("border border-zinc-200 border-b");
    expect(cn("hover:bg-zinc-50 bg-white")).toBe("hover:bg-zinc-50 bg-white");
    expect(cn("text-xs truncate text-ellipsis")).toBe("text-xs truncate text-ellipsis");
    expect(cn("shadow-sm shadow-emerald-500/15")).toBe("shadow-sm shadow-emerald-500/15");
  });

  it("groups arbitrary values and variants containing colons", () => {
    expect(classGroup("[&_svg]:size-3.5")).toBe("[&_svg]:size");
    expect(classGroup("aria-[invalid=true]:border-red-500")).toBe("aria-[invalid=true]:border-color");
    expect(classGroup("h-[calc(100vh-22rem)]")).toBe("h");
    expect(classGroup("-mb-px")).toBe("mb");
    expect(classGroup("bg-emerald-500/15")).toBe("bg-color");
    expect(classGroup("sr-only")).toBeNull();
  });

  it("answers the same for a class string it has merged before, past its memo's bound", () => {
    // More distinct strings than the memo keeps (it is cleared, not grown), each asked twice.
    for (let round = 0; round < 2; round++)
      for (let n = 0; n < 1200; n++) expect(cn(`px-${n % 7} h-${n}`, "px-4")).toBe(`h-${n} px-4`);
  });
});
