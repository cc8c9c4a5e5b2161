"use client";
// The leaderboard of an environment's split (/leaderboards/<server>/<env>/<split>): one row per run
// — models, random, script oracles, people through share links — with n, success rate (Wilson 95%),
// mean reward ± its interval, pass@k, tokens and time per episode; sortable by any column; the runs
// of one policy grouped across environment versions; the whole as one HTML file.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState } from "react";
import { PageContainer, PageHeader } from "@/components/layout/page-header";
import { buttonClasses } from "@/components/ui/button";
import { ErrorPanel } from "@/components/ui/error-panel";
import { SkeletonBlock } from "@/components/ui/skeleton";
import { envHref, leaderboardsHref, runHref } from "@/lib/routes";
import { cn } from "@/lib/ui/cn";
import {
  type LeaderboardRow,
  leaderboardApiHref,
  leaderboardQuery,
  runReportHref,
} from "@/lib/ui/review-queries";

type SortKey = "success" | "mean" | "n" | "pass1" | "tokens" | "time" | "created";

const COLUMNS: {
  key: SortKey;
  label: string;
  value: (r: LeaderboardRow) => number | null;
  best: "high" | "low";
}[] = [
  { key: "n", label: "n", value: (r) => r.n, best: "high" },
  { key: "success", label: "Success", value: (r) => r.successRate, best: "high" },
  { key: "mean", label: "Mean reward", value: (r) => r.meanReward, best: "high" },
  { key: "pass1", label: "pass@1", value: (r) => r.passAtK["1"] ?? null, best: "high" },
  { key: "tokens", label: "Tokens / episode", value: (r) => r.tokensPerEpisode, best: "low" },
  { key: "time", label: "Time / episode", value: (r) => r.msPerEpisode, best: "low" },
  { key: "created", label: "Run", value: (r) => r.createdAt, best: "high" },
];

const pct = (v: number | null) => (v === null ? "—" : `${(v * 100).toFixed(1)}%`);
const num = (v: number | null, d = 3) => (v === null ? "—" : String(Number(v.toFixed(d))));
const ms = (v: number | null) =>
  v === null ? "—" : v < 1000 ? `${Math.round(v)} ms` : `${(v / 1000).toFixed(1)} s`;

/** Rows in the order asked; grouped: each policy's rows together, groups by their best row. */
export function orderRows(rows: readonly LeaderboardRow[], key: SortKey, desc: boolean, grouped: boolean) {
  const col = COLUMNS.find((c) => c.key === key)!;
  const cmp = (a: LeaderboardRow, b: LeaderboardRow) => {
    const x = col.value(a);
    const y = col.value(b);
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
    return desc ? y - x : x - y;
  };
  const sorted = [...rows].sort(cmp);
  if (!grouped) return sorted;
  const order = [...new Set(sorted.map((r) => r.group))];
  return order.flatMap((g) => rows.filter((r) => r.group === g).sort((a, b) => a.createdAt - b.createdAt));
}

function Row({ r, ks, first, size }: { r: LeaderboardRow; ks: string[]; first: boolean; size: number }) {
  return (
    <tr className={cn("align-top", first && "border-t border-zinc-200 dark:border-zinc-800")}>
      <th scope="row" className="py-1 pr-2 text-left font-normal">
        {first ? (
          <span className="font-medium">{r.policyLabel}</span>
        ) : (
          <span className="pl-3 text-xs text-zinc-500">
            same policy<span className="sr-only">: {r.policyLabel}</span>
          </span>
        )}
        {first && size > 1 && <span className="ml-1 text-xs text-zinc-500">({size} runs)</span>}
      </th>
      <td className="px-2 font-mono text-xs">{r.version ?? "—"}</td>
      <td className="px-2 text-right tabular-nums">{r.n}</td>
      <td className="px-2 text-right tabular-nums">
        {pct(r.successRate)}
        {r.success.ci95 && (
          <span className="block text-[11px] text-zinc-500">
            [{pct(r.success.ci95[0])}, {pct(r.success.ci95[1])}]
          </span>
        )}
      </td>
      <td className="px-2 text-right tabular-nums">
        {num(r.meanReward)}
        {r.ci95 && (
          <span className="block text-[11px] text-zinc-500">± {num((r.ci95[1] - r.ci95[0]) / 2)}</span>
        )}
      </td>
      {ks.map((k) => (
        <td key={k} className="px-2 text-right tabular-nums">
          {pct(r.passAtK[k] ?? null)}
        </td>
      ))}
      <td className="px-2 text-right tabular-nums">{num(r.tokensPerEpisode, 0)}</td>
      <td className="px-2 text-right tabular-nums">{ms(r.msPerEpisode)}</td>
      <td className="whitespace-nowrap px-2">
        <Link
          href={runHref(r.runId)}
          className="font-mono text-xs text-indigo-700 hover:underline dark:text-indigo-300"
        >
          {r.runId}
        </Link>{" "}
        <a
          href={runReportHref(r.runId)}
          download
          className="text-xs text-zinc-500 hover:underline"
          aria-label={`Report of run ${r.runId} (HTML)`}
        >
          report
        </a>
      </td>
    </tr>
  );
}

export function LeaderboardView({ server, env, split }: { server: string; env: string; split: string }) {
  const q = useQuery(leaderboardQuery(server, env, split));
  const [sort, setSort] = useState<{ key: SortKey; desc: boolean }>({ key: "success", desc: true });
  const [grouped, setGrouped] = useState(true);
  const rows = useMemo(
    () => orderRows(q.data?.rows ?? [], sort.key, sort.desc, grouped),
    [q.data, sort, grouped],
  );
  const ks = [...new Set(rows.flatMap((r) => Object.keys(r.passAtK)))]
    .sort((a, b) => Number(a) - Number(b))
    .slice(1);
  const header = (c: (typeof COLUMNS)[number], numeric = true) => (
    <th
      key={c.key}
      scope="col"
      aria-sort={sort.key === c.key ? (sort.desc ? "descending" : "ascending") : "none"}
      className={numeric ? "px-2 text-right" : "px-2 text-left"}
    >
      <button
        type="button"
        className="text-xs font-medium text-zinc-600 hover:underline dark:text-zinc-400"
        onClick={() => setSort((s) => ({ key: c.key, desc: s.key === c.key ? !s.desc : c.best === "high" }))}
      >
        {c.label}
      </button>
    </th>
  );
  const col = (k: SortKey) => COLUMNS.find((c) => c.key === k)!;
  return (
    <PageContainer>
      <PageHeader
        crumbs={[{ href: leaderboardsHref(), label: "Leaderboards" }, { label: `${env} / ${split}` }]}
        title={
          <>
            Leaderboard:{" "}
            <Link href={envHref(server, env)} className="hover:underline">
              {env}
            </Link>{" "}
            / {split}
          </>
        }
        description={`Every run of this split on ${server}; success: finished with at least the run's threshold. Intervals are 95%.`}
        actions={
          <a
            href={leaderboardApiHref(server, env, split, true)}
            className={buttonClasses("secondary", "sm")}
            download
          >
            Report (HTML)
          </a>
        }
      />
      <label className="mb-3 flex items-center gap-2 text-sm">
        <input type="checkbox" checked={grouped} onChange={(e) => setGrouped(e.target.checked)} />
        Group the runs of one policy (across environment versions)
      </label>
      {q.isError ? (
        <ErrorPanel error={q.error} context={{ what: "the leaderboard" }} />
      ) : !q.data ? (
        <SkeletonBlock label="Loading the leaderboard" lines={4} />
      ) : rows.length === 0 ? (
        <p className="text-sm text-zinc-500">No run has played this split yet.</p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-sm" aria-label={`Leaderboard of ${env} / ${split}`}>
            <thead>
              <tr>
                <th scope="col" className="text-left text-xs font-medium text-zinc-600 dark:text-zinc-400">
                  Policy
                </th>
                <th
                  scope="col"
                  className="px-2 text-left text-xs font-medium text-zinc-600 dark:text-zinc-400"
                >
                  Version
                </th>
                {header(col("n"))}
                {header(col("success"))}
                {header(col("mean"))}
                {header(col("pass1"))}
                {ks.map((k) => (
                  <th
                    key={k}
                    scope="col"
                    className="px-2 text-right text-xs font-medium text-zinc-600 dark:text-zinc-400"
                  >
                    pass@{k}
                  </th>
                ))}
                {header(col("tokens"))}
                {header(col("time"))}
                {header(col("created"), false)}
              </tr>
            </thead>
            <tbody>
              {rows.map((r, i) => {
                const first = !grouped || i === 0 || rows[i - 1]!.group !== r.group;
                const size = rows.filter((x) => x.group === r.group).length;
                return <Row key={r.runId} r={r} ks={["1", ...ks]} first={first} size={grouped ? size : 1} />;
              })}
            </tbody>
          </table>
        </div>
      )}
      {q.data && q.data.versions.length > 1 && (
        <p className="mt-3 text-xs text-zinc-500">
          Environment versions (the tool specs its episodes were played with):{" "}
          {q.data.versions.map((v) => `${v.version} = ${v.hash}`).join(", ")}.
        </p>
      )}
    </PageContainer>
  );
}
