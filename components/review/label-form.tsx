"use client";
// The label form beside an episode under review: the label set's schema as a form (the schema-form
// components' ToolForm), and above it one button per choice with its key (1-9), so a reviewer can
// label by keyboard; saving (Enter outside a text field, or Ctrl+Enter) saves and moves on.
import { useEffect, useState } from "react";
import { ToolForm } from "@/components/schema-form/tool-form";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader, CardTitle } from "@/components/ui/card";
import { Kbd } from "@/components/ui/kbd";
import type { JsonObject } from "@/lib/ors/protocol";
import { type Choice, choicesOf, choose } from "@/lib/review/choices";
import type { LabelSet } from "@/lib/store/types";

export function LabelForm({
  labelSet,
  initial,
  target,
  saving,
  error,
  onChange,
  onSave,
  value,
}: {
  labelSet: LabelSet;
  /** The reviewer's label as stored (shown as saved), if any. */
  initial: JsonObject | null;
  /** What the label is about: `the episode`, `step 2`. */
  target: string;
  saving: boolean;
  error: string | null;
  value: JsonObject;
  onChange: (v: JsonObject) => void;
  onSave: (v: JsonObject) => void;
}) {
  const choices = choicesOf(labelSet.schema);
  return (
    <Card>
      <CardHeader>
        <CardTitle>
          Label {target}: {labelSet.name}
        </CardTitle>
        {initial && <span className="text-xs text-green-700 dark:text-green-400">saved</span>}
      </CardHeader>
      <CardBody className="flex flex-col gap-3">
        {choices.length > 0 && (
          <fieldset className="flex flex-wrap gap-1.5">
            <legend className="sr-only">Quick choices</legend>
            {choices.map((c) => (
              <ChoiceButton
                key={c.key}
                choice={c}
                selected={value[c.field] === c.value}
                onPick={() => onChange(choose(value, c))}
              />
            ))}
          </fieldset>
        )}
        <ToolForm
          toolName={labelSet.name}
          schema={labelSet.schema}
          value={value}
          onChange={onChange}
          onCall={onSave}
          disabled={saving}
          disabledReason={saving ? "Saving…" : undefined}
          submitLabel="Save label and next"
        />
        {error && (
          <p role="alert" className="text-sm text-red-700 dark:text-red-400">
            {error}
          </p>
        )}
      </CardBody>
    </Card>
  );
}

function ChoiceButton({
  choice,
  selected,
  onPick,
}: {
  choice: Choice;
  selected: boolean;
  onPick: () => void;
}) {
  return (
    <Button
      size="xs"
      variant={selected ? "primary" : "secondary"}
      aria-pressed={selected}
      aria-keyshortcuts={choice.key}
      onClick={onPick}
    >
      <Kbd className={selected ? "border-indigo-300 bg-indigo-500 text-white" : undefined}>{choice.key}</Kbd>
      {choice.label}
    </Button>
  );
}

/** The form's value: the saved label's, reset when the episode (or step) under review changes. */
export function useLabelValue(key: string, saved: JsonObject | null): [JsonObject, (v: JsonObject) => void] {
  const [state, setState] = useState<{ key: string; value: JsonObject }>({ key, value: saved ?? {} });
  useEffect(() => {
    setState((s) => (s.key === key ? s : { key, value: saved ?? {} }));
  }, [key, saved]);
  return [state.key === key ? state.value : (saved ?? {}), (value) => setState({ key, value })];
}
