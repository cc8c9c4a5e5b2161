"use client";

// The environment page: a header with its splits, then two tabs kept in the URL — the tools with
// their input schemas, and the task browser.
import { FileJson, GitCompare, ListChecks, Play } from "lucide-react";
import Link from "next/link";
import { PageHeader } from "@/components/layout/page-header";
import { TaskBrowser } from "@/components/tasks/task-browser";
import { Badge } from "@/components/ui/badge";
import { buttonClasses } from "@/components/ui/button";
import { Skeleton } from "@/components/ui/skeleton";
import { TabPanel, Tabs } from "@/components/ui/tabs";
import { compareEnvHref, envHref, homeHref, newEpisodeHref, newRunHref, serverHref } from "@/lib/routes";
import { useEnvironments, useNumTasks, useSplits, useTools } from "@/lib/ui/queries";
import { ReloadErrorBanner } from "./reload-error-banner";
import { ToolsPanel } from "./tools-panel";
import { type EnvTab, useEnvUrlState } from "./use-env-url-state";

const splitTone = { train: "indigo", validation: "amber", test: "green" } as const;

function SplitChip({
  server,
  env,
  name,
  type,
  selected,
}: {
  server: string;
  env: string;
  name: string;
  type: "train" | "validation" | "test";
  selected: boolean;
}) {
  const n = useNumTasks(server, env, name);
  return (
    <Link
      href={envHref(server, env, { tab: "tasks", split: name })}
      aria-current={selected ? "true" : undefined}
      className="inline-flex items-center gap-1.5 rounded-md border border-zinc-200 px-2 py-0.5 text-xs hover:border-indigo-300 aria-[current=true]:border-indigo-400 aria-[current=true]:bg-indigo-50/60 dark:border-zinc-800 dark:hover:border-indigo-800 dark:aria-[current=true]:border-indigo-700 dark:aria-[current=true]:bg-indigo-950/40"
    >
      <span className="font-mono font-medium">{name}</span>
      {type !== name && <Badge tone={splitTone[type]}>{type}</Badge>}
      <span className="tabular-nums text-zinc-500">
        {n.data !== undefined
          ? `${n.data.toLocaleString("en-US")} task${n.data === 1 ? "" : "s"}`
          : n.isError
            ? "?"
            : "…"}
      </span>
    </Link>
  );
}

function NotFoundPanel({ server, env }: { server: string; env: string }) {
  return (
    <div className="flex flex-col items-center py-20 text-center">
      <p className="font-mono text-xs text-zinc-500">404</p>
      <h1 className="mt-1 text-xl font-semibold">Environment not found</h1>
      <p className="mt-2 max-w-md text-sm text-zinc-500">
        <span className="font-mono">{server}</span> has no environment named{" "}
        <span className="font-mono">{env}</span>.
      </p>
      <Link href={serverHref(server)} className={buttonClasses("primary", "md", "mt-5")}>
        See {server}'s environments
      </Link>
    </div>
  );
}

export function EnvironmentView({ server, env }: { server: string; env: string }) {
  const { tab, split, task, update } = useEnvUrlState();
  const envs = useEnvironments(server);
  const tools = useTools(server, env);
  const splits = useSplits(server, env);

  if (envs.data && !envs.data.includes(env)) return <NotFoundPanel server={server} env={env} />;

  const activeSplit = split ?? splits.data?.[0]?.name;
  const setTab = (t: string) => update({ tab: t as EnvTab }, "push");
  const startTask = activeSplit
    ? { split: activeSplit, index: tab === "tasks" && task !== undefined ? task : 0 }
    : undefined;

  return (
    <>
      <PageHeader
        crumbs={[
          { href: homeHref(), label: "Servers" },
          { href: serverHref(server), label: server },
          { label: env },
        ]}
        title={<span className="font-mono">{env}</span>}
        description={
          tools.data
            ? `${tools.data.length} tool${tools.data.length === 1 ? "" : "s"}${splits.data ? ` · ${splits.data.length} split${splits.data.length === 1 ? "" : "s"}` : ""} on ${server}`
            : `on ${server}`
        }
        actions={
          <>
            <Link
              href={newRunHref({ server, env, split: activeSplit })}
              className={buttonClasses("secondary", "sm")}
              title="A policy (a model, random inputs, a replay, a script) plays a whole split"
            >
              <ListChecks aria-hidden="true" />
              Start a run
            </Link>
            <Link href={newEpisodeHref(server, env)} className={buttonClasses("secondary", "sm")}>
              <FileJson aria-hidden="true" />
              Start with a custom task_spec
            </Link>
            <Link
              href={compareEnvHref(server, env)}
              className={buttonClasses("secondary", "sm")}
              title="What differs from another server's environment: breaking, compatible and cosmetic changes"
            >
              <GitCompare aria-hidden="true" />
              Compare with…
            </Link>
            {startTask && (
              <Link href={newEpisodeHref(server, env, startTask)} className={buttonClasses("primary", "sm")}>
                <Play aria-hidden="true" />
                Start on {startTask.split} #{startTask.index}
              </Link>
            )}
          </>
        }
      />
      <ReloadErrorBanner server={server} env={env} refresh />
      <div className="mb-4 flex flex-wrap items-center gap-2">
        <span className="text-[11px] font-medium uppercase tracking-wide text-zinc-500">Splits</span>
        {splits.isPending ? (
          <Skeleton className="h-5 w-48" />
        ) : splits.isError ? (
          <span className="text-xs text-red-600 dark:text-red-400">
            Could not load splits: {splits.error.message}
          </span>
        ) : splits.data.length === 0 ? (
          <span className="text-xs text-zinc-500">none — start episodes with a custom task_spec</span>
        ) : (
          splits.data.map((s) => (
            <SplitChip
              key={s.name}
              server={server}
              env={env}
              name={s.name}
              type={s.type}
              selected={tab === "tasks" && s.name === activeSplit}
            />
          ))
        )}
      </div>
      <Tabs
        idBase="env"
        label="Environment views"
        value={tab}
        onValueChange={setTab}
        items={[
          { value: "tools", label: "Tools", count: tools.data?.length },
          { value: "tasks", label: "Tasks" },
        ]}
        className="mb-4"
      />
      <TabPanel idBase="env" value={tab}>
        {tab === "tools" ? (
          <ToolsPanel server={server} env={env} />
        ) : (
          <TaskBrowser server={server} env={env} />
        )}
      </TabPanel>
    </>
  );
}
