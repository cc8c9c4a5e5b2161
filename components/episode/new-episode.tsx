"use client";
// Start an episode (/s/<server>/e/<env>/episode/new): on a task (split + index, its JSON shown)
// or on a hand-written task_spec, with optional secrets; Start runs /create_session, /create and
// the prompt (which waits for setup) through the relay, then replaces the URL with the episode's.
// The form's submission is a React form action, so a Start pressed on the server-rendered page
// before React has hydrated it is kept and carried out once it has.
// A restart link names its task_spec (`?task_spec=` or `?from=`, lib/routes.ts); edits
// of it are kept as this tab's draft, so a reload keeps them and a new tab starts from the link.
import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useId, useState } from "react";
import { PageContainer, PageHeader, serverCrumbs } from "@/components/layout/page-header";
import { parseJsonObject } from "@/components/schema-form/json-text";
import { Button } from "@/components/ui/button";
import { Card, CardBody, SectionCard } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { JsonView } from "@/components/ui/json-view";
import { SkeletonBlock } from "@/components/ui/skeleton";
import { TabPanel, Tabs } from "@/components/ui/tabs";
import { episodeHref } from "@/lib/routes";
import type { EpisodeTask } from "@/lib/ui/episode-store";
import { afterPageLoad } from "@/lib/ui/ors-loader";
import { splitsQuery, taskQuery } from "@/lib/ui/queries";
import { draftSpecKey, errorMessage, useStartEpisode } from "@/lib/ui/use-episode";
import { type SecretRow, SecretsEditor, secretsFromRows } from "./secrets-editor";
import { TaskSpecEditor } from "./task-spec-editor";
import { preloadToolForm } from "./tool-panel";

function TaskPicker({
  server,
  env,
  split,
  index,
  onChange,
}: {
  server: string;
  env: string;
  split: string;
  index: number;
  onChange: (split: string, index: number) => void;
}) {
  const id = useId();
  const splits = useQuery(splitsQuery(server, env));
  const task = useQuery({ ...taskQuery(server, env, split, index), enabled: split !== "" && index >= 0 });
  return (
    <div className="flex flex-col gap-3">
      <div className="flex flex-wrap items-end gap-3">
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-split`} className="text-xs font-medium text-zinc-700 dark:text-zinc-300">
            Split
          </label>
          <select
            id={`${id}-split`}
            name="split"
            value={split}
            onChange={(e) => onChange(e.target.value, index)}
            className="h-8 min-w-32 rounded-md border border-zinc-300 bg-white px-2 font-mono text-sm dark:border-zinc-700 dark:bg-zinc-900"
          >
            {split && !splits.data?.some((s) => s.name === split) && <option value={split}>{split}</option>}
            {splits.data?.map((s) => (
              <option key={s.name} value={s.name}>
                {s.name} ({s.type})
              </option>
            ))}
          </select>
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-index`} className="text-xs font-medium text-zinc-700 dark:text-zinc-300">
            Task index
          </label>
          <Input
            id={`${id}-index`}
            name="index"
            type="number"
            min={0}
            value={Number.isFinite(index) ? index : ""}
            onChange={(e) =>
              onChange(split, e.target.value === "" ? 0 : Math.max(0, Math.floor(Number(e.target.value))))
            }
            className="w-32 font-mono"
          />
        </div>
      </div>
      {task.isPending && split !== "" && <SkeletonBlock label="Loading the task" lines={3} />}
      {task.error && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          Could not load task {index} of {split}: {errorMessage(task.error)}
        </p>
      )}
      {task.data && (
        <JsonView value={task.data} label={`Task ${split}/${index}`} expandDepth={2} maxHeight="20rem" />
      )}
    </div>
  );
}

/** A task_spec named by the page's URL (a restart link): its text, or why it is unknown. */
export interface SpecSource {
  /** Names the source, so this tab's edits of it are kept apart from other drafts. */
  key: string;
  text: string | null;
  error: string | null;
}

/** The inline spec as people read it: pretty-printed when it is JSON, else as it came. */
function readable(text: string): string {
  const p = parseJsonObject(text);
  return p.ok ? JSON.stringify(p.value, null, 2) : text;
}

type Mode = "task" | "spec";

/** The form's state and its submission: the task or spec, the secrets, and the start itself. */
function useNewEpisodeForm({
  server,
  env,
  initialSplit,
  initialIndex,
  fromSpec,
  specSource,
}: {
  server: string;
  env: string;
  initialSplit: string | null;
  initialIndex: number | null;
  fromSpec: boolean;
  specSource: SpecSource | null;
}) {
  const router = useRouter();
  const [mode, setMode] = useState<Mode>(fromSpec ? "spec" : "task");
  const [split, setSplit] = useState(initialSplit ?? "");
  const [index, setIndex] = useState(initialIndex ?? 0);
  const draftKey = specSource ? `${draftSpecKey(server, env)}:${specSource.key}` : draftSpecKey(server, env);
  const [specText, setSpecText] = useState(() =>
    specSource?.text != null ? readable(specSource.text) : "{\n  \n}",
  );
  const [secrets, setSecrets] = useState<SecretRow[]>([]);
  const [formError, setFormError] = useState<string | null>(null);
  // As soon as the session exists, fetch the episode page (its route code) while /create and the
  // prompt (which waits for the environment's setup) run.
  const start = useStartEpisode(server, env, {
    onSession: (sid) => router.prefetch(episodeHref(server, env, sid)),
  });
  const splits = useQuery({ ...splitsQuery(server, env), enabled: mode === "task" && split === "" });

  // The episode page will need the tool form and the Markdown renderer: fetch them while the user decides.
  useEffect(() => {
    preloadToolForm();
    void afterPageLoad().then(() => import("./markdown-text"));
  }, []);

  // This tab's edits of the spec (a reload keeps them); a new tab starts from the link.
  useEffect(() => {
    try {
      const draft = sessionStorage.getItem(draftKey);
      if (draft) setSpecText(draft);
    } catch {
      // no storage: start from the link, or empty
    }
  }, [draftKey]);

  useEffect(() => {
    if (split === "" && splits.data?.[0]) setSplit(splits.data[0].name);
  }, [split, splits.data]);

  const onSpecChange = (text: string) => {
    setSpecText(text);
    try {
      sessionStorage.setItem(draftKey, text);
    } catch {
      // not kept
    }
  };

  /**
   * The task to start on, or why there is none, from what the form holds. A field filled before
   * React hydrated the page is in the form's data but not yet in this state (the state follows it).
   */
  const task = (data?: FormData): EpisodeTask | string => {
    const field = (name: string) => {
      const v = data?.get(name);
      return typeof v === "string" ? v : null;
    };
    const typedSpec = field("task_spec");
    if (typedSpec !== null && typedSpec !== specText) onSpecChange(typedSpec);
    if (mode === "task") {
      const s = field("split") ?? split;
      const typedIndex = field("index");
      const i = typedIndex !== null && /^\d+$/.test(typedIndex) ? Number(typedIndex) : index;
      if (s !== split || i !== index) {
        setSplit(s);
        setIndex(i);
      }
      return s ? { split: s, index: i } : "Choose a split.";
    }
    const p = parseJsonObject(typedSpec ?? specText);
    return p.ok ? { task_spec: p.value } : `task_spec: ${p.message}`;
  };

  const submit = (data?: FormData) => {
    setFormError(null);
    const t = task(data);
    if (typeof t === "string") return setFormError(t);
    const s = secretsFromRows(secrets);
    if (!s.ok) return setFormError(s.error);
    start.mutate(
      { task: t, secrets: s.secrets },
      {
        onSuccess: ({ sid }) => {
          setSecrets([]); // forget the values as soon as they are sent
          router.replace(episodeHref(server, env, sid));
        },
      },
    );
  };

  return {
    mode,
    setMode,
    split,
    index,
    setTask: (s: string, i: number) => {
      setSplit(s);
      setIndex(i);
    },
    specText,
    onSpecChange,
    secrets,
    setSecrets,
    formError,
    start,
    submit,
  };
}

type NewEpisodeForm = ReturnType<typeof useNewEpisodeForm>;

/** The task card: a task of a split (its JSON shown) or a hand-written task_spec. */
function TaskSource({
  server,
  env,
  specSource,
  form,
}: {
  server: string;
  env: string;
  specSource: SpecSource | null;
  form: NewEpisodeForm;
}) {
  const tabsId = useId().replace(/:/g, "");
  return (
    <SectionCard title="Task" bodyClassName="flex flex-col gap-3">
      <Tabs
        label="Task source"
        idBase={tabsId}
        value={form.mode}
        onValueChange={(v) => form.setMode(v as Mode)}
        items={[
          { value: "task", label: "Task from a split" },
          { value: "spec", label: "Custom task_spec" },
        ]}
      />
      {form.mode === "task" ? (
        <TabPanel idBase={tabsId} value="task">
          <TaskPicker
            server={server}
            env={env}
            split={form.split}
            index={form.index}
            onChange={form.setTask}
          />
        </TabPanel>
      ) : (
        <TabPanel idBase={tabsId} value="spec" className="flex flex-col gap-2">
          {specSource?.error && (
            <p role="alert" className="text-sm text-red-700 dark:text-red-400">
              {specSource.error}
            </p>
          )}
          <TaskSpecEditor name="task_spec" text={form.specText} onChange={form.onSpecChange} />
        </TabPanel>
      )}
    </SectionCard>
  );
}

function StartFailed({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  return (
    <div
      role="alert"
      className="rounded-lg border border-red-300 bg-red-50 px-3 py-3 text-red-900 dark:border-red-900 dark:bg-red-950 dark:text-red-100"
    >
      <p className="text-sm font-semibold">The episode could not start</p>
      <p className="mt-1 whitespace-pre-wrap font-mono text-xs">{errorMessage(error)}</p>
      <p className="mt-1 text-xs opacity-80">
        If the environment's setup failed, fix it (or its secrets) and try again; nothing was kept.
      </p>
      <Button className="mt-2" size="sm" onClick={onRetry}>
        Try again
      </Button>
    </div>
  );
}

export function NewEpisode({
  server,
  env,
  split: initialSplit,
  index: initialIndex,
  fromSpec,
  specSource = null,
}: {
  server: string;
  env: string;
  split: string | null;
  index: number | null;
  fromSpec: boolean;
  specSource?: SpecSource | null;
}) {
  const form = useNewEpisodeForm({ server, env, initialSplit, initialIndex, fromSpec, specSource });
  const { start } = form;
  return (
    <PageContainer className="max-w-3xl">
      <PageHeader
        crumbs={serverCrumbs(server, env, "New episode")}
        title="Start an episode"
        description={
          <>
            A new session on <span className="font-mono">{server}</span> /{" "}
            <span className="font-mono">{env}</span>, through the recording relay.
          </>
        }
      />
      <form action={form.submit} className="flex flex-col gap-4" aria-label="Start an episode">
        <TaskSource server={server} env={env} specSource={specSource} form={form} />
        <Card>
          <CardBody>
            <SecretsEditor rows={form.secrets} onChange={form.setSecrets} />
          </CardBody>
        </Card>
        {form.formError && (
          <p role="alert" className="text-sm text-red-700 dark:text-red-400">
            {form.formError}
          </p>
        )}
        {start.error && <StartFailed error={start.error} onRetry={() => form.submit()} />}
        <div className="flex items-center gap-3">
          <Button type="submit" variant="primary" disabled={start.isPending || start.isSuccess}>
            {start.isPending ? "Starting…" : "Start episode"}
          </Button>
          {start.isPending && (
            <span className="text-xs text-zinc-500">creating the session and waiting for setup…</span>
          )}
        </div>
      </form>
    </PageContainer>
  );
}
