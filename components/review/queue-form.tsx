"use client";
// A new review queue: episodes of a run (a sample, stratified by reward if asked) for reviewers by
// name, each episode seen by one or more of them, blind to the reward by default.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Field } from "@/components/runs/form-fields";
import { Form } from "@/components/ui/form";
import { Input, inputClasses } from "@/components/ui/input";
import type { LabelSet } from "@/lib/store/types";
import { useCreateQueue } from "@/lib/ui/review-queries";
import { runsQuery } from "@/lib/ui/run-queries";
import { FormActions } from "./form-parts";

export function QueueForm({ labelSets, onDone }: { labelSets: readonly LabelSet[]; onDone?: () => void }) {
  const create = useCreateQueue();
  const [v, setV] = useState({
    labelSet: labelSets[0]?.id ?? "",
    run: "",
    size: "40",
    reviewers: "",
    perEpisode: "1",
    stratified: true,
    blind: true,
  });
  const set = labelSets.find((s) => s.id === v.labelSet);
  const runs = useQuery({ ...runsQuery({ server: set?.server, env: set?.env, limit: 100 }), enabled: !!set });
  const reviewers = v.reviewers
    .split(",")
    .map((r) => r.trim())
    .filter(Boolean);
  const text =
    (k: "labelSet" | "run" | "size" | "reviewers" | "perEpisode") => (e: { target: { value: string } }) =>
      setV({ ...v, [k]: e.target.value });
  const submit = () =>
    create.mutate(
      {
        labelSet: v.labelSet,
        run: v.run,
        size: Number(v.size),
        stratified: v.stratified,
        reviewers,
        perEpisode: Number(v.perEpisode),
        blind: v.blind,
      },
      { onSuccess: () => onDone?.() },
    );
  return (
    <Form aria-label="New review queue" className="grid gap-3 sm:grid-cols-2" onSubmit={submit}>
      <Field label="Label set">
        {(p) => (
          <select {...p} className={inputClasses} value={v.labelSet} onChange={text("labelSet")}>
            {labelSets.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name} ({s.server}/{s.env})
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field
        label="Run"
        hint={runs.data && !runs.data.items.length ? "No run of this environment yet" : undefined}
      >
        {(p) => (
          <select {...p} className={inputClasses} value={v.run} onChange={text("run")}>
            <option value="">Choose a run</option>
            {runs.data?.items.map((r) => (
              <option key={r.id} value={r.id}>
                {r.id} · {r.policyLabel} · {r.split} · {r.completed} episodes
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Episodes to review">
        {(p) => <Input {...p} type="number" min={1} value={v.size} onChange={text("size")} />}
      </Field>
      <Field label="Reviewers" hint="Names, separated by commas">
        {(p) => <Input {...p} value={v.reviewers} onChange={text("reviewers")} placeholder="ann, bob" />}
      </Field>
      <Field label="Reviewers per episode" hint="2 or more: Cohen's κ between them">
        {(p) => <Input {...p} type="number" min={1} value={v.perEpisode} onChange={text("perEpisode")} />}
      </Field>
      <fieldset className="flex flex-col gap-1 text-sm">
        <legend className="sr-only">Options</legend>
        <label className="flex items-center gap-2">
          <input
            type="checkbox"
            checked={v.stratified}
            onChange={(e) => setV({ ...v, stratified: e.target.checked })}
          />
          Stratified by reward
        </label>
        <label className="flex items-center gap-2">
          <input
            type="checkbox"
            checked={v.blind}
            onChange={(e) => setV({ ...v, blind: e.target.checked })}
          />
          Blind (rewards hidden until labelled)
        </label>
      </fieldset>
      <FormActions
        label="Create queue"
        disabled={create.isPending || !v.run || !reviewers.length}
        error={create.error}
      />
    </Form>
  );
}
