"use client";
// The policy part of the new-run form: the choice of policy, then that policy's own fields, from a
// registry of one section per policy (a model at an endpoint, random inputs, a replay of a run, a
// script module), as the form's other sections are laid out.
import type { ReactNode } from "react";
import { ModelIdInput, modelListHint } from "@/components/models/model-id-input";
import { SectionCard } from "@/components/ui/card";
import { Select } from "@/components/ui/input";
import type { ModelChoice } from "@/lib/ui/model-choice";
import type { PolicyKind, RunFormErrors, RunFormValues } from "@/lib/ui/run-form";
import { useModels, useRuns } from "@/lib/ui/run-queries";
import { Choice, Field, TextField } from "./form-fields";

export interface PolicyFieldsProps {
  v: RunFormValues;
  set: (patch: Partial<RunFormValues>) => void;
  errors: RunFormErrors;
  model: ModelChoice;
}

function ModelFields(form: PolicyFieldsProps) {
  const { v, set, errors, model } = form;
  const models = useModels();
  return (
    <div className="grid gap-3 sm:grid-cols-3">
      <Field
        label="Endpoint"
        error={errors.endpoint}
        hint={models.data?.length === 0 ? "none configured (PLAYGROUND_MODELS)" : undefined}
      >
        {(p) => (
          <Select
            {...p}
            value={v.endpoint}
            onValueChange={(endpoint) => set({ endpoint })}
            options={(models.data ?? []).map((m) => m.name)}
          >
            {!v.endpoint && <option value="">{models.isPending ? "loading…" : "none"}</option>}
          </Select>
        )}
      </Field>
      <Field label="Model id" error={errors.model} hint={modelListHint(model)}>
        {(p) => <ModelIdInput {...p} choice={model} />}
      </Field>
      <TextField
        form={form}
        label="Temperature"
        name="temperature"
        mode="decimal"
        hint="blank: the endpoint's default"
      />
    </div>
  );
}

function RandomFields(form: PolicyFieldsProps) {
  return (
    <TextField
      form={form}
      label="Seed"
      name="randomSeed"
      hint="the same seed calls the same tools with the same inputs"
      className="w-40"
    />
  );
}

function ReplayFields({ v, set, errors }: PolicyFieldsProps) {
  const replayable = useRuns({ env: v.env || undefined, limit: 100 });
  return (
    <Field
      label="Run to replay"
      error={errors.replayRun}
      hint="its actions, task by task and repeat by repeat, on this server and split"
    >
      {(p) => (
        <Select
          {...p}
          value={v.replayRun}
          onValueChange={(replayRun) => set({ replayRun })}
          options={(replayable.data?.items ?? []).map((r) => ({
            value: r.id,
            label: `${r.id.slice(0, 8)} · ${r.env}/${r.split} · ${r.policyLabel} · ${r.status}`,
          }))}
        >
          <option value="">{replayable.isPending ? "loading…" : "choose…"}</option>
        </Select>
      )}
    </Field>
  );
}

function ScriptFields(form: PolicyFieldsProps) {
  return (
    <TextField
      form={form}
      label="Module path"
      name="scriptModule"
      mode="text"
      hint="a .ts or .js file in the app's folder (or PLAYGROUND_SCRIPT_ROOTS) exporting a policy function"
      placeholder="policies/oracle.ts"
      className="font-mono"
    />
  );
}

/** Each policy's label and its fields. */
const POLICIES: Record<PolicyKind, { label: string; Fields: (p: PolicyFieldsProps) => ReactNode }> = {
  model: { label: "Model", Fields: ModelFields },
  random: { label: "Random inputs", Fields: RandomFields },
  replay: { label: "Replay a run", Fields: ReplayFields },
  script: { label: "Script module", Fields: ScriptFields },
};

export function PolicySection(props: PolicyFieldsProps & { onPolicy: (policy: PolicyKind) => void }) {
  const { Fields } = POLICIES[props.v.policy];
  return (
    <SectionCard title="Policy" bodyClassName="space-y-3">
      <Choice
        legend="Policy"
        name="policy"
        value={props.v.policy}
        onChange={(policy) => props.onPolicy(policy as PolicyKind)}
        options={Object.entries(POLICIES).map(([value, p]) => ({ value, label: p.label }))}
      />
      <Fields {...props} />
    </SectionCard>
  );
}
