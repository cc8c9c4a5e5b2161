"use client";

// The environment page's view state lives in its URL (`?tab=tasks&split=train&task=12`), so a link
// reopens it. Updates go through the History API, which Next.js keeps in sync with useSearchParams
// without a server round trip.
import { usePathname, useSearchParams } from "next/navigation";
import { useCallback } from "react";

export type EnvTab = "tools" | "tasks";

export type EnvUrlState = {
  tab: EnvTab;
  split: string | undefined;
  task: number | undefined;
};

function parseTask(raw: string | null): number | undefined {
  if (raw === null || !/^\d+$/.test(raw)) return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : undefined;
}

export function useEnvUrlState() {
  const params = useSearchParams();
  const pathname = usePathname();
  const split = params.get("split") ?? undefined;
  const task = parseTask(params.get("task"));
  const rawTab = params.get("tab");
  const tab: EnvTab =
    rawTab === "tasks" || rawTab === "tools" ? rawTab : split || task !== undefined ? "tasks" : "tools";

  const update = useCallback(
    (patch: Partial<EnvUrlState>, mode: "push" | "replace" = "replace") => {
      const next = new URLSearchParams(window.location.search);
      for (const [k, v] of Object.entries(patch)) {
        if (v === undefined || v === null || v === "") next.delete(k);
        else next.set(k, String(v));
      }
      const qs = next.toString();
      const url = `${pathname}${qs ? `?${qs}` : ""}`;
      if (mode === "push") window.history.pushState(null, "", url);
      else window.history.replaceState(null, "", url);
    },
    [pathname],
  );

  return { tab, split, task, update };
}
