"use client";
// The trajectories list's filters (search, server, environment, task, end reason, rewards, sort,
// golden only), each kept in the URL; the search box follows it a moment after typing.
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useState } from "react";
import { Input, inputClasses, Label, Select } from "@/components/ui/input";
import { END_REASONS, SORT_KEYS } from "@/lib/trajectory/model";
import type { TrajectoryFilter, TrajectorySummary } from "@/lib/trajectory/schema";
import { filterFromParams } from "@/lib/ui/trajectory-filter";

/** Distinct non-empty values of a field among the loaded rows (suggestions for the filters). */
function distinct(
  items: TrajectorySummary[] | undefined,
  pick: (t: TrajectorySummary) => string | null,
): string[] {
  return [...new Set((items ?? []).map(pick).filter((v): v is string => !!v))].sort();
}

export type SetParam = (patch: Record<string, string | undefined>) => void;

/** The filter in the URL, and a setter of its parameters. */
export function useListParams(): { filter: TrajectoryFilter; setParam: SetParam } {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const filter = filterFromParams(new URLSearchParams(params.toString()));
  const setParam: SetParam = (patch) => {
    const p = new URLSearchParams(params.toString());
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined || v === "") p.delete(k);
      else p.set(k, v);
    }
    router.replace(`${pathname}?${p}`, { scroll: false });
  };
  return { filter, setParam };
}

export function FilterForm({
  filter,
  setParam,
  items,
}: {
  filter: TrajectoryFilter;
  setParam: SetParam;
  items: TrajectorySummary[] | undefined;
}) {
  const [q, setQ] = useState(filter.q ?? "");
  // Debounced search box.
  useEffect(() => {
    if ((filter.q ?? "") === q) return;
    const t = setTimeout(() => setParam({ q }), 250);
    return () => clearTimeout(t);
  });
  const field = (name: keyof TrajectoryFilter, label: string, props: Record<string, unknown> = {}) => (
    <div className="space-y-1">
      <Label htmlFor={`f-${name}`}>{label}</Label>
      <Input
        id={`f-${name}`}
        defaultValue={String(filter[name] ?? "")}
        key={`${name}-${filter[name] ?? ""}`}
        onBlur={(e) => setParam({ [name]: e.target.value.trim() })}
        onKeyDown={(e) => {
          if (e.key === "Enter") setParam({ [name]: (e.target as HTMLInputElement).value.trim() });
        }}
        {...props}
      />
    </div>
  );
  return (
    <form
      aria-label="Filters"
      className="mb-3 grid grid-cols-2 gap-2 sm:grid-cols-4 lg:grid-cols-10"
      onSubmit={(e) => e.preventDefault()}
    >
      <div className="col-span-2 space-y-1">
        <Label htmlFor="f-q">Search</Label>
        <Input
          id="f-q"
          type="search"
          value={q}
          onChange={(e) => setQ(e.target.value)}
          placeholder="text, tool, id…"
        />
      </div>
      {field("server", "Server", { list: "f-server-options" })}
      {field("env", "Environment", { list: "f-env-options" })}
      <datalist id="f-server-options">
        {distinct(items, (t) => t.server).map((v) => (
          <option key={v} value={v} />
        ))}
      </datalist>
      <datalist id="f-env-options">
        {distinct(items, (t) => t.env).map((v) => (
          <option key={v} value={v} />
        ))}
      </datalist>
      {field("task", "Task", { placeholder: "train/12" })}
      <div className="space-y-1">
        <Label htmlFor="f-end">End reason</Label>
        <Select
          id="f-end"
          value={filter.end_reason ?? ""}
          onValueChange={(end_reason) => setParam({ end_reason })}
          options={END_REASONS}
        >
          <option value="">any</option>
          <option value="running">running</option>
        </Select>
      </div>
      {field("min_reward", "Min reward", { type: "number", step: "any" })}
      {field("max_reward", "Max reward", { type: "number", step: "any" })}
      <div className="space-y-1">
        <Label htmlFor="f-sort">Sort by</Label>
        <select
          id="f-sort"
          className={inputClasses}
          value={`${filter.sort ?? "started_at"}:${filter.order ?? "desc"}`}
          onChange={(e) => {
            const [sort, order] = e.target.value.split(":");
            setParam({ sort, order });
          }}
        >
          {SORT_KEYS.flatMap((k) =>
            (["desc", "asc"] as const).map((o) => (
              <option key={`${k}:${o}`} value={`${k}:${o}`}>
                {k.replace("_", " ")} {o === "desc" ? "↓" : "↑"}
              </option>
            )),
          )}
        </select>
      </div>
      <div className="flex items-end pb-1.5">
        <label className="flex items-center gap-1.5 text-xs font-medium text-zinc-700 dark:text-zinc-300">
          {/* Uncontrolled (the URL follows a moment later), re-keyed when the URL changes it. */}
          <input
            type="checkbox"
            key={`golden-${filter.golden === true}`}
            defaultChecked={filter.golden === true}
            onChange={(e) => setParam({ golden: e.target.checked ? "1" : undefined })}
          />
          Golden only
        </label>
      </div>
    </form>
  );
}
