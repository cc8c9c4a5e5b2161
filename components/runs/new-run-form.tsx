"use client";
// Starting a run (/runs/new?server=&env=&split=, the environment page's "Start a run"): where
// (server, environment, split), which tasks (all, a range, a list, a seeded sample), the policy
// (a model at a configured endpoint, random inputs, a replay of a run, a script module) and the
// settings (repeats, concurrency, success threshold, time limit, max turns). The request is built
// and checked by lib/ui/run-form.ts; the server checks it again and its `detail` is shown.
import { Play } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import { PageContainer, PageHeader } from "@/components/layout/page-header";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader, CardTitle } from "@/components/ui/card";
import { ErrorPanel } from "@/components/ui/error-panel";
import { Input, inputClasses } from "@/components/ui/input";
import { envHref, runHref, runsHref } from "@/lib/routes";
import { useEnvironments, useNumTasks, useServers, useSplits } from "@/lib/ui/queries";
import {
  buildRunRequest,
  DEFAULT_RUN_FORM,
  type PolicyKind,
  type RunFormValues,
  type TaskMode,
} from "@/lib/ui/run-form";
import { formatCount } from "@/lib/ui/run-format";
import { useModels, useRuns, useStartRun } from "@/lib/ui/run-queries";
import { Choice, Field } from "./form-fields";

const DEFAULT_TURNS: Record<PolicyKind, number> = { model: 30, random: 10, replay: 1000, script: 100 };

export function NewRunForm({
  initial,
}: {
  initial: Partial<Pick<RunFormValues, "server" | "env" | "split">>;
}) {
  const router = useRouter();
  const [v, setV] = useState<RunFormValues>(() => ({
    ...DEFAULT_RUN_FORM,
    ...Object.fromEntries(Object.entries(initial).filter(([, x]) => x)),
  }));
  const [attempted, setAttempted] = useState(false);
  const [policyTouched, setPolicyTouched] = useState(false);
  const set = (patch: Partial<RunFormValues>) => setV((x) => ({ ...x, ...patch }));

  const servers = useServers();
  const envs = useEnvironments(v.server);
  const splits = useSplits(v.server, v.env);
  const numTasks = useNumTasks(v.server, v.env, v.split || undefined);
  const models = useModels();
  const replayable = useRuns({ env: v.env || undefined, limit: 100 });
  const start = useStartRun();

  // Sensible choices once the lists are known: the first split, the first endpoint, and random
  // inputs when no model endpoint is configured (until the user picks a policy).
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

  const built = useMemo(() => buildRunRequest(v, numTasks.data), [v, numTasks.data]);
  const errors = attempted ? built.errors : {};
  const envChoices = envs.data ?? [];

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
      <form
        id="new-run"
        aria-label="New run"
        noValidate
        className="grid gap-4 lg:grid-cols-2"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <Card>
          <CardHeader>
            <CardTitle>Where</CardTitle>
          </CardHeader>
          <CardBody className="grid gap-3 sm:grid-cols-3">
            <Field label="Server" error={errors.server}>
              {(p) => (
                <select
                  {...p}
                  className={inputClasses}
                  value={v.server}
                  onChange={(e) => set({ server: e.target.value, env: "", split: "" })}
                >
                  {(servers.data ?? [{ name: v.server }]).map((s) => (
                    <option key={s.name} value={s.name}>
                      {s.name}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field label="Environment" error={errors.env ?? (envs.error ? envs.error.message : undefined)}>
              {(p) => (
                <select
                  {...p}
                  className={inputClasses}
                  value={v.env}
                  onChange={(e) => set({ env: e.target.value, split: "" })}
                >
                  <option value="">{envs.isPending ? "loading…" : "choose…"}</option>
                  {v.env && !envChoices.includes(v.env) && <option value={v.env}>{v.env}</option>}
                  {envChoices.map((e) => (
                    <option key={e} value={e}>
                      {e}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field
              label="Split"
              error={errors.split ?? (splits.error ? splits.error.message : undefined)}
              hint={numTasks.data !== undefined ? `${formatCount(numTasks.data)} tasks` : undefined}
            >
              {(p) => (
                <select
                  {...p}
                  className={inputClasses}
                  value={v.split}
                  disabled={!v.env}
                  onChange={(e) => set({ split: e.target.value })}
                >
                  {!v.split && <option value="">{v.env && splits.isPending ? "loading…" : "choose…"}</option>}
                  {(splits.data ?? []).map((s) => (
                    <option key={s.name} value={s.name}>
                      {s.name}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          </CardBody>
        </Card>

        <Card>
          <CardHeader>
            <CardTitle>Tasks</CardTitle>
            <span className="text-xs text-zinc-500" role="status" aria-label="Episodes to play">
              {built.tasks !== null
                ? `${formatCount(built.tasks)} task${built.tasks === 1 ? "" : "s"} × ${v.repeats || 1} = ${formatCount(built.episodes)} episode${built.episodes === 1 ? "" : "s"}`
                : v.policy === "replay" && v.taskMode === "all"
                  ? "the replayed run's tasks"
                  : ""}
            </span>
          </CardHeader>
          <CardBody className="space-y-3">
            <Choice
              legend="Tasks"
              name="task-mode"
              value={v.taskMode}
              onChange={(taskMode) => set({ taskMode: taskMode as TaskMode })}
              options={[
                { value: "all", label: v.policy === "replay" ? "As the replayed run" : "All" },
                { value: "range", label: "Range" },
                { value: "list", label: "List" },
                { value: "sample", label: "Seeded sample" },
              ]}
            />
            {v.taskMode === "range" && (
              <div className="grid grid-cols-2 gap-3">
                <Field label="From task" error={errors.rangeFrom}>
                  {(p) => (
                    <Input
                      {...p}
                      inputMode="numeric"
                      value={v.rangeFrom}
                      onChange={(e) => set({ rangeFrom: e.target.value })}
                    />
                  )}
                </Field>
                <Field label="To task (included)" error={errors.rangeTo}>
                  {(p) => (
                    <Input
                      {...p}
                      inputMode="numeric"
                      placeholder={numTasks.data ? String(numTasks.data - 1) : ""}
                      value={v.rangeTo}
                      onChange={(e) => set({ rangeTo: e.target.value })}
                    />
                  )}
                </Field>
              </div>
            )}
            {v.taskMode === "list" && (
              <Field label="Task indexes" error={errors.list} hint="e.g. 1,5,9 or 0-9,20-29">
                {(p) => <Input {...p} value={v.list} onChange={(e) => set({ list: e.target.value })} />}
              </Field>
            )}
            {v.taskMode === "sample" && (
              <div className="grid grid-cols-2 gap-3">
                <Field label="Sample size" error={errors.sampleSize}>
                  {(p) => (
                    <Input
                      {...p}
                      inputMode="numeric"
                      value={v.sampleSize}
                      onChange={(e) => set({ sampleSize: e.target.value })}
                    />
                  )}
                </Field>
                <Field
                  label="Sample seed"
                  error={errors.sampleSeed}
                  hint="the same seed draws the same tasks"
                >
                  {(p) => (
                    <Input
                      {...p}
                      inputMode="numeric"
                      value={v.sampleSeed}
                      onChange={(e) => set({ sampleSeed: e.target.value })}
                    />
                  )}
                </Field>
              </div>
            )}
          </CardBody>
        </Card>

        <Card>
          <CardHeader>
            <CardTitle>Policy</CardTitle>
          </CardHeader>
          <CardBody className="space-y-3">
            <Choice
              legend="Policy"
              name="policy"
              value={v.policy}
              onChange={(policy) => {
                setPolicyTouched(true);
                set({ policy: policy as PolicyKind });
              }}
              options={[
                { value: "model", label: "Model" },
                { value: "random", label: "Random inputs" },
                { value: "replay", label: "Replay a run" },
                { value: "script", label: "Script module" },
              ]}
            />
            {v.policy === "model" && (
              <div className="grid gap-3 sm:grid-cols-3">
                <Field
                  label="Endpoint"
                  error={errors.endpoint}
                  hint={models.data?.length === 0 ? "none configured (PLAYGROUND_MODELS)" : undefined}
                >
                  {(p) => (
                    <select
                      {...p}
                      className={inputClasses}
                      value={v.endpoint}
                      onChange={(e) => set({ endpoint: e.target.value })}
                    >
                      {!v.endpoint && <option value="">{models.isPending ? "loading…" : "none"}</option>}
                      {(models.data ?? []).map((m) => (
                        <option key={m.name} value={m.name}>
                          {m.name}
                        </option>
                      ))}
                    </select>
                  )}
                </Field>
                <Field label="Model id" error={errors.model}>
                  {(p) => (
                    <Input
                      {...p}
                      placeholder="e.g. qwen2.5-7b-instruct"
                      value={v.model}
                      onChange={(e) => set({ model: e.target.value })}
                    />
                  )}
                </Field>
                <Field label="Temperature" error={errors.temperature} hint="blank: the endpoint's default">
                  {(p) => (
                    <Input
                      {...p}
                      inputMode="decimal"
                      value={v.temperature}
                      onChange={(e) => set({ temperature: e.target.value })}
                    />
                  )}
                </Field>
              </div>
            )}
            {v.policy === "random" && (
              <Field
                label="Seed"
                error={errors.randomSeed}
                hint="the same seed calls the same tools with the same inputs"
              >
                {(p) => (
                  <Input
                    {...p}
                    inputMode="numeric"
                    className="w-40"
                    value={v.randomSeed}
                    onChange={(e) => set({ randomSeed: e.target.value })}
                  />
                )}
              </Field>
            )}
            {v.policy === "replay" && (
              <Field
                label="Run to replay"
                error={errors.replayRun}
                hint="its actions, task by task and repeat by repeat, on this server and split"
              >
                {(p) => (
                  <select
                    {...p}
                    className={inputClasses}
                    value={v.replayRun}
                    onChange={(e) => set({ replayRun: e.target.value })}
                  >
                    <option value="">{replayable.isPending ? "loading…" : "choose…"}</option>
                    {(replayable.data?.items ?? []).map((r) => (
                      <option key={r.id} value={r.id}>
                        {r.id.slice(0, 8)} · {r.env}/{r.split} · {r.policyLabel} · {r.status}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
            )}
            {v.policy === "script" && (
              <Field
                label="Module path"
                error={errors.scriptModule}
                hint="a .ts or .js file in the app's folder (or PLAYGROUND_SCRIPT_ROOTS) exporting a policy function"
              >
                {(p) => (
                  <Input
                    {...p}
                    placeholder="policies/oracle.ts"
                    className="font-mono"
                    value={v.scriptModule}
                    onChange={(e) => set({ scriptModule: e.target.value })}
                  />
                )}
              </Field>
            )}
          </CardBody>
        </Card>

        <Card>
          <CardHeader>
            <CardTitle>Settings</CardTitle>
          </CardHeader>
          <CardBody className="grid grid-cols-2 gap-3 sm:grid-cols-3">
            <Field label="Repeats" error={errors.repeats} hint="attempts per task (pass@k)">
              {(p) => (
                <Input
                  {...p}
                  inputMode="numeric"
                  value={v.repeats}
                  onChange={(e) => set({ repeats: e.target.value })}
                />
              )}
            </Field>
            <Field label="Concurrency" error={errors.concurrency} hint="episodes at once">
              {(p) => (
                <Input
                  {...p}
                  inputMode="numeric"
                  value={v.concurrency}
                  onChange={(e) => set({ concurrency: e.target.value })}
                />
              )}
            </Field>
            <Field label="Success threshold" error={errors.successAt} hint="finished with a reward ≥ this">
              {(p) => (
                <Input
                  {...p}
                  inputMode="decimal"
                  value={v.successAt}
                  onChange={(e) => set({ successAt: e.target.value })}
                />
              )}
            </Field>
            <Field label="Episode time limit (s)" error={errors.timeout}>
              {(p) => (
                <Input
                  {...p}
                  inputMode="decimal"
                  value={v.timeout}
                  onChange={(e) => set({ timeout: e.target.value })}
                />
              )}
            </Field>
            <Field label="Max turns" error={errors.maxTurns} hint={`blank: ${DEFAULT_TURNS[v.policy]}`}>
              {(p) => (
                <Input
                  {...p}
                  inputMode="numeric"
                  placeholder={String(DEFAULT_TURNS[v.policy])}
                  value={v.maxTurns}
                  onChange={(e) => set({ maxTurns: e.target.value })}
                />
              )}
            </Field>
          </CardBody>
        </Card>

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
      </form>
    </PageContainer>
  );
}
