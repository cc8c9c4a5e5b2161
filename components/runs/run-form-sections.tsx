"use client";
// The new-run form's sections other than the policy (policy-fields.tsx): where the run plays
// (server, environment, split), which tasks, and its settings. Each is given the form's values,
// their setter and the errors of an attempt to start.
import { SectionCard } from "@/components/ui/card";
import { Input, Select } from "@/components/ui/input";
import { useEnvironments, useNumTasks, useServers, useSplits } from "@/lib/ui/queries";
import type { BuiltRun, PolicyKind, RunFormErrors, RunFormValues, TaskMode } from "@/lib/ui/run-form";
import { formatCount } from "@/lib/ui/run-format";
import { Choice, Field, TextField, type TextSpec } from "./form-fields";

export interface SectionProps {
  v: RunFormValues;
  set: (patch: Partial<RunFormValues>) => void;
  errors: RunFormErrors;
}

const DEFAULT_TURNS: Record<PolicyKind, number> = { model: 30, random: 10, replay: 1000, script: 100 };

const plural = (n: number, word: string) => `${formatCount(n)} ${word}${n === 1 ? "" : "s"}`;

export function WhereSection({ v, set, errors }: SectionProps) {
  const servers = useServers();
  const envs = useEnvironments(v.server);
  const splits = useSplits(v.server, v.env);
  const numTasks = useNumTasks(v.server, v.env, v.split || undefined);
  const envChoices = envs.data ?? [];
  return (
    <SectionCard title="Where" bodyClassName="grid gap-3 sm:grid-cols-3">
      <Field label="Server" error={errors.server}>
        {(p) => (
          <Select
            {...p}
            value={v.server}
            onValueChange={(server) => set({ server, env: "", split: "" })}
            options={(servers.data ?? [{ name: v.server }]).map((s) => s.name)}
          />
        )}
      </Field>
      <Field label="Environment" error={errors.env ?? (envs.error ? envs.error.message : undefined)}>
        {(p) => (
          <Select {...p} value={v.env} onValueChange={(env) => set({ env, split: "" })} options={envChoices}>
            <option value="">{envs.isPending ? "loading…" : "choose…"}</option>
            {v.env && !envChoices.includes(v.env) && <option value={v.env}>{v.env}</option>}
          </Select>
        )}
      </Field>
      <Field
        label="Split"
        error={errors.split ?? (splits.error ? splits.error.message : undefined)}
        hint={numTasks.data !== undefined ? `${formatCount(numTasks.data)} tasks` : undefined}
      >
        {(p) => (
          <Select
            {...p}
            value={v.split}
            disabled={!v.env}
            onValueChange={(split) => set({ split })}
            options={(splits.data ?? []).map((s) => s.name)}
          >
            {!v.split && <option value="">{v.env && splits.isPending ? "loading…" : "choose…"}</option>}
          </Select>
        )}
      </Field>
    </SectionCard>
  );
}

/** Two numeric fields side by side (a range's ends, a sample's size and seed). */
function NumberPair({ fields, form }: { fields: TextSpec[]; form: SectionProps }) {
  return (
    <div className="grid grid-cols-2 gap-3">
      {fields.map((f) => (
        <TextField key={f.name} {...f} form={form} />
      ))}
    </div>
  );
}

export function TasksSection({ built, ...form }: SectionProps & { built: BuiltRun }) {
  const { v, set, errors } = form;
  const numTasks = useNumTasks(v.server, v.env, v.split || undefined);
  const count =
    built.tasks !== null
      ? `${plural(built.tasks, "task")} × ${v.repeats || 1} = ${plural(built.episodes ?? 0, "episode")}`
      : v.policy === "replay" && v.taskMode === "all"
        ? "the replayed run's tasks"
        : "";
  return (
    <SectionCard
      title="Tasks"
      bodyClassName="space-y-3"
      aside={
        <span className="text-xs text-zinc-500" role="status" aria-label="Episodes to play">
          {count}
        </span>
      }
    >
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
        <NumberPair
          form={form}
          fields={[
            { label: "From task", name: "rangeFrom" },
            {
              label: "To task (included)",
              name: "rangeTo",
              placeholder: numTasks.data ? String(numTasks.data - 1) : "",
            },
          ]}
        />
      )}
      {v.taskMode === "list" && (
        <Field label="Task indexes" error={errors.list} hint="e.g. 1,5,9 or 0-9,20-29">
          {(p) => <Input {...p} value={v.list} onChange={(e) => set({ list: e.target.value })} />}
        </Field>
      )}
      {v.taskMode === "sample" && (
        <NumberPair
          form={form}
          fields={[
            { label: "Sample size", name: "sampleSize" },
            { label: "Sample seed", name: "sampleSeed", hint: "the same seed draws the same tasks" },
          ]}
        />
      )}
    </SectionCard>
  );
}

/** The settings' fields. */
const SETTINGS: TextSpec[] = [
  { label: "Repeats", name: "repeats", hint: "attempts per task (pass@k)" },
  { label: "Concurrency", name: "concurrency", hint: "episodes at once" },
  { label: "Success threshold", name: "successAt", hint: "finished with a reward ≥ this", mode: "decimal" },
  { label: "Episode time limit (s)", name: "timeout", mode: "decimal" },
];

export function SettingsSection(form: SectionProps) {
  const turns = String(DEFAULT_TURNS[form.v.policy]);
  return (
    <SectionCard title="Settings" bodyClassName="grid grid-cols-2 gap-3 sm:grid-cols-3">
      {SETTINGS.map((f) => (
        <TextField key={f.name} {...f} form={form} />
      ))}
      <TextField label="Max turns" name="maxTurns" hint={`blank: ${turns}`} placeholder={turns} form={form} />
    </SectionCard>
  );
}
