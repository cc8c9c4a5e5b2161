"use client";
// A new label set: an environment, a name, what it labels (episodes or steps) and its JSON Schema,
// with an example to start from; the API checks the schema and finds its verdict field.
import { useState } from "react";
import { Field } from "@/components/runs/form-fields";
import { Form } from "@/components/ui/form";
import { Input, inputClasses } from "@/components/ui/input";
import { useCreateLabelSet } from "@/lib/ui/review-queries";
import { FormActions } from "./form-parts";

/** What a label set usually asks: was it right, what should the reward have been, what went wrong. */
export const EXAMPLE_LABEL_SCHEMA = {
  type: "object",
  properties: {
    correct: { type: "boolean", title: "Correct", description: "Did the episode solve the task?" },
    failure: { type: "string", title: "Failure", enum: ["none", "wrong answer", "format", "gave up"] },
    note: { type: "string", title: "Note" },
  },
  required: ["correct"],
};

export function LabelSetForm({ onDone }: { onDone?: () => void }) {
  const create = useCreateLabelSet();
  const [v, setV] = useState({
    server: "local",
    env: "",
    name: "",
    target: "episode" as "episode" | "step",
    schema: JSON.stringify(EXAMPLE_LABEL_SCHEMA, null, 2),
  });
  const [schemaError, setSchemaError] = useState<string | null>(null);
  const set = (k: keyof typeof v) => (e: { target: { value: string } }) =>
    setV({ ...v, [k]: e.target.value });
  const submit = () => {
    let schema: Record<string, unknown>;
    try {
      schema = JSON.parse(v.schema) as Record<string, unknown>;
    } catch (e) {
      setSchemaError(`Not JSON: ${(e as Error).message}`);
      return;
    }
    setSchemaError(null);
    create.mutate(
      { server: v.server.trim(), env: v.env.trim(), name: v.name.trim(), target: v.target, schema },
      { onSuccess: () => onDone?.() },
    );
  };
  return (
    <Form aria-label="New label set" className="grid gap-3 sm:grid-cols-2" onSubmit={submit}>
      <Field label="Server">{(p) => <Input {...p} value={v.server} onChange={set("server")} />}</Field>
      <Field label="Environment">
        {(p) => <Input {...p} value={v.env} onChange={set("env")} placeholder="math" />}
      </Field>
      <Field label="Name">
        {(p) => <Input {...p} value={v.name} onChange={set("name")} placeholder="verdict" />}
      </Field>
      <Field label="Labels">
        {(p) => (
          <select {...p} className={inputClasses} value={v.target} onChange={set("target")}>
            <option value="episode">whole episodes</option>
            <option value="step">steps</option>
          </select>
        )}
      </Field>
      <div className="sm:col-span-2">
        <Field
          label="Schema (JSON Schema of a label)"
          error={schemaError ?? undefined}
          hint="A boolean `correct` (or a number `reward_should_be`) is the verdict the agreement report compares with the reward."
        >
          {(p) => (
            <textarea
              {...p}
              rows={12}
              spellCheck={false}
              className={`${inputClasses} h-auto py-2 font-mono text-xs`}
              value={v.schema}
              onChange={set("schema")}
            />
          )}
        </Field>
      </div>
      <FormActions
        label="Create label set"
        disabled={create.isPending || !v.env.trim() || !v.name.trim()}
        error={create.error}
      />
    </Form>
  );
}
