"use client";
// Starting a run (/runs/new?server=&env=&split=, the environment page's "Start a run"): where
// (server, environment, split), which tasks (all, a range, a list, a seeded sample), the policy
// (a model at a configured endpoint, random inputs, a replay of a run, a script module) and the
// settings (repeats, concurrency, success threshold, time limit, max turns). The request is built
// and checked by lib/ui/run-form.ts; the server checks it again and its `detail` is shown. The
// sections are run-form-sections.tsx and policy-fields.tsx (one section per policy).
import { Play } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import { PageContainer, PageHeader } from "@/components/layout/page-header";
import { Button } from "@/components/ui/button";
import { ErrorPanel } from "@/components/ui/error-panel";
import { Form } from "@/components/ui/form";
import { envHref, runHref, runsHref } from "@/lib/routes";
import { useModelChoice } from "@/lib/ui/model-choice";
import { useNumTasks, useSplits } from "@/lib/ui/queries";
import { buildRunRequest, DEFAULT_RUN_FORM, type RunFormValues } from "@/lib/ui/run-form";
import { useModels, useStartRun } from "@/lib/ui/run-queries";
import { PolicySection } from "./policy-fields";
import { SettingsSection, TasksSection, WhereSection } from "./run-form-sections";

type Initial = Partial<Pick<RunFormValues, "server" | "env" | "split">>;

/** The form's values, with sensible choices once the lists are known, and the request they make. */
function useNewRunForm(initial: Initial) {
  const [v, setV] = useState<RunFormValues>(() => ({
    ...DEFAULT_RUN_FORM,
    ...Object.fromEntries(Object.entries(initial).filter(([, x]) => x)),
  }));
  const [policyTouched, setPolicyTouched] = useState(false);
  const set = (patch: Partial<RunFormValues>) => setV((x) => ({ ...x, ...patch }));
  const splits = useSplits(v.server, v.env);
  const numTasks = useNumTasks(v.server, v.env, v.split || undefined);
  const models = useModels();
  const model = useModelChoice(v.policy === "model" ? v.endpoint : "");

  // The first split, the first endpoint, and random inputs when no model endpoint is configured
  // (until the user picks a policy).
  useEffect(() => {
    const first = splits.data?.[0]?.name;
    if (first !== undefined && !splits.data!.some((s) => s.name === v.split))
      setV((x) => ({ ...x, split: first }));
  }, [splits.data, v.split]);
  useEffect(() => {
    if (!models.data) return;
    const first = models.data[0]?.name;
    if (first !== undefined && !models.data.some((m) => m.name === v.endpoint))
      setV((x) => ({ ...x, endpoint: first }));
    if (models.data.length === 0 && !policyTouched && v.policy === "model")
      setV((x) => ({ ...x, policy: "random" }));
  }, [models.data, v.endpoint, v.policy, policyTouched]);

  const built = useMemo(
    () => buildRunRequest({ ...v, model: model.model }, numTasks.data),
    [v, model.model, numTasks.data],
  );
  return {
    v,
    set,
    model,
    built,
    choosePolicy: (policy: RunFormValues["policy"]) => {
      setPolicyTouched(true);
      set({ policy });
    },
  };
}

export function NewRunForm({ initial }: { initial: Initial }) {
  const router = useRouter();
  const { v, set, model, built, choosePolicy } = useNewRunForm(initial);
  const [attempted, setAttempted] = useState(false);
  const start = useStartRun();
  const errors = attempted ? built.errors : {};

  const submit = () => {
    setAttempted(true);
    if (!built.request) {
      // Focus the first field that says what is wrong.
      requestAnimationFrame(() =>
        document.querySelector<HTMLElement>('#new-run [aria-invalid="true"]')?.focus(),
      );
      return;
    }
    start.mutate(built.request, { onSuccess: (r) => router.push(runHref(r.id)) });
  };

  return (
    <PageContainer>
      <PageHeader
        crumbs={[
          { href: runsHref(), label: "Runs" },
          ...(v.env ? [{ href: envHref(v.server, v.env), label: v.env }] : []),
          { label: "New run" },
        ]}
        title="Start a run"
        description="A policy plays every selected task of a split, each as a recorded episode; the run goes on server-side if you close the tab."
      />
      <Form
        id="new-run"
        aria-label="New run"
        noValidate
        className="grid gap-4 lg:grid-cols-2"
        onSubmit={submit}
      >
        <WhereSection v={v} set={set} errors={errors} />
        <TasksSection v={v} set={set} errors={errors} built={built} />
        <PolicySection v={v} set={set} errors={errors} model={model} onPolicy={choosePolicy} />
        <SettingsSection v={v} set={set} errors={errors} />
        <div className="flex flex-wrap items-center gap-3 lg:col-span-2">
          <Button type="submit" variant="primary" disabled={start.isPending}>
            <Play aria-hidden="true" />
            {start.isPending ? "Starting…" : "Start run"}
          </Button>
          <Link href={runsHref()} className="text-xs text-zinc-600 hover:underline dark:text-zinc-400">
            Cancel
          </Link>
          {attempted && !built.request && (
            <p role="alert" className="text-xs text-red-700 dark:text-red-400">
              Fix the fields marked above to start the run.
            </p>
          )}
        </div>
        {start.error && (
          <ErrorPanel
            className="lg:col-span-2"
            error={start.error}
            context={{ server: v.server, env: v.env, what: "Run" }}
          />
        )}
      </Form>
    </PageContainer>
  );
}
