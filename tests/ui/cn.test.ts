// The class-name merger (lib/ui/cn.ts): which classes share a group, and which of them survives.
import { describe, expect, it } from "vitest";
import { classGroup, cn } from "@/lib/ui/cn";

describe("cn", () => {
  // The last class of a group wins; classes of different groups, variants and sides all stay.
  it.each<[Parameters<typeof cn>, string]>([
    [["px-2.5 h-8", "px-4"], "h-8 px-4"],
    [["mx-auto max-w-7xl py-6", "max-w-2xl py-16"], "mx-auto max-w-2xl py-16"],
    [["rounded", "rounded-lg"], "rounded-lg"],
    [["text-sm text-zinc-900", "text-xs"], "text-zinc-900 text-xs"],
    [["text-zinc-900 text-sm", "text-red-600"], "text-sm text-red-600"],
    [["bg-white dark:bg-zinc-900", "dark:bg-zinc-950"], "bg-white dark:bg-zinc-950"],
    [["p-3 text-sm", false, undefined, { "p-2": true }], "text-sm p-2"],
    [["flex flex-1 flex-col", "items-center"], "flex flex-1 flex-col items-center"],
    [["px-2 pl-7"], "px-2 pl-7"],
    [["rounded-md rounded-t-lg"], "rounded-md rounded-t-lg"],
    [["border border-zinc-200 border-b"], "border border-zinc-200 border-b"],
    [["hover:bg-zinc-50 bg-white"], "hover:bg-zinc-50 bg-white"],
    [["text-xs truncate text-ellipsis"], "text-xs truncate text-ellipsis"],
    [["shadow-sm shadow-emerald-500/15"], "shadow-sm shadow-emerald-500/15"],
  ])("merges %j into %j", (classes, merged) => {
    expect(cn(...classes)).toBe(merged);
  });

  // Arbitrary values and variants containing colons have their groups.
  it.each([
    ["[&_svg]:size-3.5", "[&_svg]:size"],
    ["aria-[invalid=true]:border-red-500", "aria-[invalid=true]:border-color"],
    ["h-[calc(100vh-22rem)]", "h"],
    ["-mb-px", "mb"],
    ["bg-emerald-500/15", "bg-color"],
    ["sr-only", null],
  ])("puts %s in the group %s", (name, group) => {
    expect(classGroup(name)).toBe(group);
  });

  it("answers the same for a class string it has merged before, past its memo's bound", () => {
    // More distinct strings than the memo keeps (it is cleared, not grown), each asked twice.
    for (let round = 0; round < 2; round++)
      for (let n = 0; n < 1200; n++) expect(cn(`px-${n % 7} h-${n}`, "px-4")).toBe(`h-${n} px-4`);
  });
});
